"""Writes the GIF over 10 MB that A1 measures (and the tests build in Swift: RawGIFWriter): 640x480
x 30 frames of seeded noise, LZW with 9-bit codes and a clear code every 250 pixels, so 10.4 MB
whatever the content. Deterministic; needs numpy only.

    Benchmarks/.venv/bin/python Benchmarks/big_gif.py OUT.gif [--width 640 --height 480 --frames 30 --seed 7]
"""
import argparse

import numpy as np


def lzw_uncompressed(indices):
    """9-bit codes, least significant bit first: clear, one code per pixel (clear every 250), end."""
    n = len(indices)
    groups = (n + 249) // 250
    codes = np.empty(n + groups + 1, dtype=np.uint32)
    pos = 0
    for g in range(groups):
        chunk = indices[g * 250:(g + 1) * 250]
        codes[pos] = 256
        codes[pos + 1:pos + 1 + len(chunk)] = chunk
        pos += 1 + len(chunk)
    codes[pos] = 257
    codes = codes[:pos + 1]
    bits = ((codes[:, None] >> np.arange(9, dtype=np.uint32)) & 1).astype(np.uint8).reshape(-1)
    return np.packbits(bits, bitorder="little").tobytes()


def gif(width, height, frames, seed, delay_cs=10):
    rng = np.random.default_rng(seed)
    le16 = lambda v: bytes([v & 0xFF, (v >> 8) & 0xFF])
    out = bytearray(b"GIF89a" + le16(width) + le16(height) + bytes([0xF7, 0, 0]))
    out += bytes(c for i in range(256) for c in (i, 255 - i, (i * 7) & 0xFF))
    out += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01" + le16(0) + b"\x00"
    for _ in range(frames):
        out += b"\x21\xF9\x04\x04" + le16(delay_cs) + b"\x00\x00"
        out += b"\x2C" + le16(0) + le16(0) + le16(width) + le16(height) + b"\x00\x08"
        stream = lzw_uncompressed(rng.integers(0, 256, width * height, dtype=np.uint32))
        for i in range(0, len(stream), 255):
            block = stream[i:i + 255]
            out += bytes([len(block)]) + block
        out += b"\x00"
    out += b"\x3B"
    return bytes(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    data = gif(args.width, args.height, args.frames, args.seed)
    with open(args.out, "wb") as f:
        f.write(data)
    print(f"{args.out}: {len(data)} bytes")


if __name__ == "__main__":
    main()
