#!/usr/bin/python3
"""GetManagedObjects of voicememod as a GLib client sees it: the reply received and
parsed by GDBus (what a GNOME Shell extension or a GTK applet does), without printing it
as `gdbus call` would. Prints one line per call: milliseconds and objects listed."""
import sys
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio  # noqa: E402

bus = Gio.bus_get_sync(Gio.BusType.SESSION)
for _ in range(int(sys.argv[1])):
    started = time.monotonic()
    reply = bus.call_sync(
        "org.example.VoiceMemo", "/org/example/VoiceMemo", "org.freedesktop.DBus.ObjectManager",
        "GetManagedObjects", None, None, Gio.DBusCallFlags.NONE, 60000, None)
    elapsed = (time.monotonic() - started) * 1000
    print(f"{elapsed:.2f} {reply.get_child_value(0).n_children()}", flush=True)
