"""Writes the GIFs over 10 MB that A1 and A2 measure.

`noise` (the default; the tests build the same in Swift: RawGIFWriter): 640x480 x 30 frames of
seeded noise, LZW with 9-bit codes and a clear code every 250 pixels, so 10.4 MB whatever the
content. Needs numpy only.

`pan` (A2): a photo at WIDTHxHEIGHT, dithered once to one full 256-colour palette, with a window
in it showing the same photo panning frame by frame (FRACTION of the width): each frame after the
first changes only that window, as a screen recording or a sprite animation does, and the GIF
(LZW-compressed by Pillow, which writes each later frame as the rectangle that changed) is over
10 MB at the sizes A2 uses. Needs Pillow and numpy.

    Benchmarks/.venv/bin/python Benchmarks/big_gif.py OUT.gif [--width 640 --height 480 --frames 30 --seed 7]
    Benchmarks/.venv/bin/python Benchmarks/big_gif.py OUT.gif --kind pan --photo P.jpg --width 1200 --height 900 --frames 40
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


def pan_gif(out, photo, width, height, frames, fraction=0.45, delay_ms=80):
    """The `pan` GIF: a dithered still with a panning window, one shared 256-colour palette."""
    from PIL import Image
    source = Image.open(photo).convert("RGB")
    base = source.resize((width, height), Image.LANCZOS)
    palette_image = base.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    still = np.asarray(base.quantize(palette=palette_image, dither=Image.Dither.FLOYDSTEINBERG)).copy()
    window_w, window_h = int(width * fraction), int(height * 0.9)
    x0, y0 = width // 20, height // 20
    # The pan's source: the photo at twice the frame's size, so the window moves over new content.
    wide = source.resize((width * 2, height * 2), Image.LANCZOS)
    step = max(1, (wide.width - window_w) // max(1, frames))
    images = []
    for i in range(frames):
        crop = wide.crop((i * step, i * step // 2, i * step + window_w, i * step // 2 + window_h))
        window = np.asarray(crop.quantize(palette=palette_image, dither=Image.Dither.FLOYDSTEINBERG))
        frame = still.copy()
        frame[y0:y0 + window_h, x0:x0 + window_w] = window
        image = Image.fromarray(frame, mode="P")
        image.putpalette(palette_image.getpalette())
        images.append(image)
    images[0].save(out, save_all=True, append_images=images[1:], duration=delay_ms, loop=0, optimize=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--kind", choices=["noise", "pan"], default="noise")
    ap.add_argument("--photo", help="pan: the photo to pan over")
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    if args.kind == "pan":
        pan_gif(args.out, args.photo, args.width, args.height, args.frames)
        import os
        print(f"{args.out}: {os.path.getsize(args.out)} bytes")
        return
    data = gif(args.width, args.height, args.frames, args.seed)
    with open(args.out, "wb") as f:
        f.write(data)
    print(f"{args.out}: {len(data)} bytes")


if __name__ == "__main__":
    main()
