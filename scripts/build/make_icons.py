#!/usr/bin/env python3
"""Draw the app's install icons (public/icon-192.png, public/icon-512.png) from the same
shapes as public/favicon.svg: a rounded blue square with three white bars. Pure Python
(zlib + struct), 4x4 supersampling for smooth edges. Run once when the favicon changes;
the PNGs are committed (the build only copies them).

Usage: scripts/build/make_icons.py [OUT_DIR]   (default: public/)
"""

import os
import struct
import sys
import zlib

BLUE = (0x0B, 0x5F, 0xA5)
WHITE = (0xFF, 0xFF, 0xFF)
# In the favicon's 16x16 units: the square's corner radius, and the bars (x, y, w, h).
RADIUS = 3.0
BARS = [(3, 7, 2, 4), (7, 4, 2, 7), (11, 8, 2, 3)]
SAMPLES = 4


def inside_rounded(x: float, y: float) -> bool:
    cx = min(max(x, RADIUS), 16 - RADIUS)
    cy = min(max(y, RADIUS), 16 - RADIUS)
    return (x - cx) ** 2 + (y - cy) ** 2 <= RADIUS**2


def inside_bar(x: float, y: float) -> bool:
    return any(bx <= x < bx + bw and by <= y < by + bh for bx, by, bw, bh in BARS)


def pixel(px: int, py: int, size: int) -> tuple:
    """RGBA of one pixel: the mean of SAMPLES x SAMPLES points inside it."""
    scale = 16.0 / size
    cover = 0
    white = 0
    for sy in range(SAMPLES):
        for sx in range(SAMPLES):
            x = (px + (sx + 0.5) / SAMPLES) * scale
            y = (py + (sy + 0.5) / SAMPLES) * scale
            if inside_rounded(x, y):
                cover += 1
                white += inside_bar(x, y)
    n = SAMPLES * SAMPLES
    if cover == 0:
        return (0, 0, 0, 0)
    t = white / cover
    rgb = tuple(round(b + (w - b) * t) for b, w in zip(BLUE, WHITE))
    return rgb + (round(255 * cover / n),)


def png(size: int) -> bytes:
    rows = bytearray()
    for py in range(size):
        rows.append(0)  # no filter
        for px in range(size):
            rows.extend(pixel(px, py, size))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + chunk(b"IEND", b"")
    )


def main() -> int:
    out = sys.argv[1] if len(sys.argv) > 1 else "public"
    for size in (192, 512):
        path = os.path.join(out, f"icon-{size}.png")
        with open(path, "wb") as f:
            f.write(png(size))
        print(f"make_icons.py: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
