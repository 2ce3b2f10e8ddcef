#!/usr/bin/env python3
"""Converts a binary PPM (P6, maxval 255) to a PNG, with Python's standard library only.

`make panel-picture` uses it for the bar pictures the real-panel test takes with grim.
Usage: ppm-to-png.py IN.ppm OUT.png
"""
import struct
import sys
import zlib


def read_ppm(path):
    with open(path, "rb") as file:
        data = file.read()
    fields, position = [], 0
    while len(fields) < 4:
        while data[position:position + 1].isspace():
            position += 1
        if data[position:position + 1] == b"#":
            position = data.index(b"\n", position)
            continue
        start = position
        while not data[position:position + 1].isspace():
            position += 1
        fields.append(data[start:position])
    if fields[0] != b"P6" or fields[3] != b"255":
        sys.exit(f"{path}: not a P6 picture with maxval 255")
    width, height = int(fields[1]), int(fields[2])
    return width, height, data[position + 1:position + 1 + width * height * 3]


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def main():
    source, target = sys.argv[1:3]
    width, height, pixels = read_ppm(source)
    stride = width * 3
    # Filter type 0 (none) on every row.
    raw = b"".join(b"\x00" + pixels[row * stride:(row + 1) * stride] for row in range(height))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(target, "wb") as file:
        file.write(png)


main()
