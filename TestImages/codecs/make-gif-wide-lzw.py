#!/usr/bin/env python3
"""Makes `gif_lzw_code_size_9_11.gif` and Pillow's decode of each of its frames.

Run once from the repository root in a venv with Pillow 13:
    /tmp/venv/bin/python TestImages/codecs/make-gif-wide-lzw.py
The files are committed; tests never run Python.

A 64x48 GIF, global table of 256 colours, three frames, disposal none, no transparency:
1. the whole canvas, LZW minimum code size 9 (a gradient with repeats, so the table grows
   to 12-bit codes, fills, and the encoder sends a clear code);
2. a 40x30 rectangle at (8, 6), code size 8 (giflib decodes it: the walk must go on);
3. a 24x20 interlaced rectangle at (36, 20), code size 11.
Written by hand (Pillow writes only code size <= 8); the LZW encoder below is plain GIF LZW.
Pillow (and libvips, `fail=True`) decode it; giflib 5.2 refuses code sizes above 8.
"""
import struct

from PIL import Image

W, H = 64, 48


def lzw(indices, min_size):
    clear, end = 1 << min_size, (1 << min_size) + 1
    size, next_code = min_size + 1, end + 1
    table = {(i,): i for i in range(clear)}
    out, acc, nbits = bytearray(), 0, 0

    def emit(code):
        nonlocal acc, nbits
        acc |= code << nbits
        nbits += size
        while nbits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nbits -= 8

    emit(clear)
    w = ()
    for k in indices:
        wk = w + (k,)
        if wk in table:
            w = wk
            continue
        emit(table[w])
        if next_code < 4096:
            table[wk] = next_code
            next_code += 1
            # The decoder widens after adding entry 2^size - 1 one code later: widen when the
            # code just assigned is 2^size (the encoder runs one entry ahead of the decoder).
            if next_code - 1 == (1 << size) and size < 12:
                size += 1
        else:
            emit(clear)
            table = {(i,): i for i in range(clear)}
            size, next_code = min_size + 1, end + 1
        w = (k,)
    emit(table[w])
    emit(end)
    if nbits:
        out.append(acc & 0xFF)
    blocks = bytearray([min_size])
    for i in range(0, len(out), 255):
        chunk = out[i:i + 255]
        blocks += bytes([len(chunk)]) + chunk
    return bytes(blocks + b"\0")


def frame(x, y, w, h, min_size, pixels, interlaced=False):
    rows = [pixels[r * w:(r + 1) * w] for r in range(h)]
    if interlaced:
        order = [r for start, step in ((0, 8), (4, 8), (2, 4), (1, 2)) for r in range(start, h, step)]
        rows = [rows[r] for r in order]
    flat = [p for row in rows for p in row]
    gce = b"\x21\xf9\x04" + bytes([1 << 2]) + struct.pack("<H", 10) + b"\x00\x00"
    desc = b"\x2c" + struct.pack("<HHHH", x, y, w, h) + bytes([0x40 if interlaced else 0])
    return gce + desc + lzw(flat, min_size)


palette = bytearray()
for i in range(256):
    palette += bytes([i, (i * 7) % 256, 255 - i])
f1 = [((x * 4 + y) // 3) % 256 for y in range(H) for x in range(W)]
f2 = [(x * y) % 256 for y in range(30) for x in range(40)]
f3 = [(200 + x + 2 * y) % 256 for y in range(20) for x in range(24)]
data = b"GIF89a" + struct.pack("<HH", W, H) + bytes([0xF7, 0, 0]) + bytes(palette)
data += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
data += frame(0, 0, W, H, 9, f1) + frame(8, 6, 40, 30, 8, f2) + frame(36, 20, 24, 20, 11, f3, interlaced=True)
data += b"\x3b"
path = "TestImages/codecs/gif_lzw_code_size_9_11.gif"
open(path, "wb").write(data)

image = Image.open(path)
for n in range(image.n_frames):
    image.seek(n)
    image.convert("RGBA").save(f"TestImages/codecs/gif_lzw_code_size_9_11_frame{n + 1}.png")
print(len(data), "bytes,", image.n_frames, "frames")

# `gif_frame_larger_than_screen.gif`: a 16x16 screen with two frames larger than it, one colour
# each: 4000x16 at (0, 0), and 16x60000 interlaced at (0, 0) (row 15, its last on the screen,
# is stored row 30,007: pass 4 starts at 30,000). The pixel budget is checked on the screen;
# these frames cost 64,000 and 480,128 decoded pixels.
palette2 = bytes([255, 0, 0, 0, 0, 255])
data = b"GIF89a" + struct.pack("<HH", 16, 16) + bytes([0x80, 0, 0]) + palette2
data += frame(0, 0, 4000, 16, 2, [0] * (4000 * 16))
data += frame(0, 0, 16, 60000, 2, [1] * (16 * 60000), interlaced=True)
data += b"\x3b"
open("TestImages/codecs/gif_frame_larger_than_screen.gif", "wb").write(data)
print(len(data), "bytes: gif_frame_larger_than_screen.gif")
