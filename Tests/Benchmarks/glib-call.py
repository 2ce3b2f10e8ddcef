#!/usr/bin/python3
"""A method of voicememod as a GLib client calls it: the reply received and parsed by GDBus
(what a GNOME Shell extension or a GTK applet does), without printing it as `gdbus call`
would. The benchmark passes every name from the contract; nothing here spells one.

Usage: glib-call.py CALLS BUS-NAME OBJECT-PATH INTERFACE METHOD [SIGNATURE ARGUMENT...]

SIGNATURE is the method's input signature, basic types only (e.g. "uus"), followed by one
ARGUMENT per type, as plain text: a number, true/false, or a string as it is. Makes CALLS
calls on one connection and prints one line per call: milliseconds, and how many items the
reply's first value holds (objects listed, memos found)."""
import sys
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

INTEGERS = set("ynqiuxth")


def argument(code, text):
    """One argument of basic D-Bus type `code` from its text."""
    if code in INTEGERS:
        return int(text)
    if code == "d":
        return float(text)
    if code == "b":
        return {"true": True, "false": False}[text]
    if code in "sog":
        return text
    sys.exit(f"glib-call.py: type '{code}' is not a basic type this client passes")


calls, name, path, interface, method = int(sys.argv[1]), *sys.argv[2:6]
parameters = None
if len(sys.argv) > 6:
    signature, texts = sys.argv[6], sys.argv[7:]
    if len(signature) != len(texts):
        sys.exit(f"glib-call.py: signature '{signature}' needs {len(signature)} arguments, got {len(texts)}")
    parameters = GLib.Variant(f"({signature})", tuple(argument(c, t) for c, t in zip(signature, texts)))

bus = Gio.bus_get_sync(Gio.BusType.SESSION)
for _ in range(calls):
    started = time.monotonic()
    reply = bus.call_sync(name, path, interface, method, parameters, None, Gio.DBusCallFlags.NONE, 60000, None)
    elapsed = (time.monotonic() - started) * 1000
    print(f"{elapsed:.2f} {reply.get_child_value(0).n_children()}", flush=True)
