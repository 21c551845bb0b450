#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The README's picture: a sample image beside what three operations make of it (Gaussian blur,
Canny edges, the Fourier spectrum), side by side, each captioned by its command, as one PNG.
The sample is first scaled to fit 320 pixels. Made with the gip binary alone (outputs as PPM/PGM, put together here, written with zlib).

usage: readme_picture.py GIP DATA_DIR OUT.png
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

SAMPLE = "chelsea.png"
STEPS = [  # (caption, gip arguments before IN OUT)
    ("gip gaussian --ksize 15", ["gaussian", "--ksize", "15"]),
    ("gip canny 50 150", ["canny", "50", "150"]),
    ("gip spectrum", ["spectrum"]),
]
GAP = 8


def gip(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"readme_picture: gip {' '.join(args)}: {r.stderr.strip()}")


def read_pnm(path):
    """A binary PPM (P6) or PGM (P5) of 8 bits as (width, height, RGB rows)."""
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    pos += 1
    magic, w, h = fields[0], int(fields[1]), int(fields[2])
    c = 3 if magic == b"P6" else 1
    px = data[pos:pos + w * h * c]
    rows = []
    for y in range(h):
        row = px[y * w * c:(y + 1) * w * c]
        rows.append(row if c == 3 else bytes(b for v in row for b in (v, v, v)))
    return w, h, rows


def write_png(path, w, h, rows):
    raw = b"".join(b"\x00" + r for r in rows)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(png)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    binary, data, out = sys.argv[1:]
    with tempfile.TemporaryDirectory(prefix="gip-readme-") as work:
        src = os.path.join(work, "in.ppm")
        gip(binary, "thumbnail", "320", os.path.join(data, SAMPLE), src)
        tiles = [read_pnm(src)]
        for k, (_, args) in enumerate(STEPS):
            dst = os.path.join(work, f"out{k}.pnm")
            gip(binary, *args, src, dst.replace(".pnm", ".ppm" if args[0] == "gaussian" else ".pgm"))
            tiles.append(read_pnm(dst.replace(".pnm", ".ppm" if args[0] == "gaussian" else ".pgm")))
    h = max(t[1] for t in tiles)
    w = sum(t[0] for t in tiles) + GAP * (len(tiles) - 1)
    white = b"\xff" * 3
    rows = []
    for y in range(h):
        parts = []
        for i, (tw, th, trows) in enumerate(tiles):
            parts.append(trows[y] if y < th else white * tw)
            if i + 1 < len(tiles):
                parts.append(white * GAP)
        rows.append(b"".join(parts))
    write_png(out, w, h, rows)
    print(f"readme_picture: {w}x{h} -> {out} ({', '.join(c for c, _ in STEPS)})")


if __name__ == "__main__":
    main()
