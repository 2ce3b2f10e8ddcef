#!/usr/bin/python3
"""GetManagedObjects of voicememod as a GLib client sees it: the reply received and
parsed by GDBus (what a GNOME Shell extension or a GTK applet does), without printing it
as `gdbus call` would. Usage: glib-managed-objects.py CALLS BUS-NAME OBJECT-PATH (the
benchmark passes the contract's names). Prints one line per call: milliseconds and objects
listed."""
import sys
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio  # noqa: E402

bus = Gio.bus_get_sync(Gio.BusType.SESSION)
calls, name, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
for _ in range(calls):
    started = time.monotonic()
    reply = bus.call_sync(
        name, path, "org.freedesktop.DBus.ObjectManager",
        "GetManagedObjects", None, None, Gio.DBusCallFlags.NONE, 60000, None)
    elapsed = (time.monotonic() - started) * 1000
    print(f"{elapsed:.2f} {reply.get_child_value(0).n_children()}", flush=True)
