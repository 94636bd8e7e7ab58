"""Large test images for Scripts/memory-check.sh and Benchmarks/compare (W4), written at run time
with the Python standard library (plus `cjpeg` from libjpeg-turbo-progs for the JPEG).

    python3 Scripts/memcheck/images.py png OUT.png 7000 7000            # opaque RGBA, ~200 KB
    python3 Scripts/memcheck/images.py png OUT.png 16000 3000 --alpha   # alpha that varies
    python3 Scripts/memcheck/images.py jpeg OUT.jpg 5472 3648 --orientation 6

The PNGs compress about 1000:1 (deflate's limit): row 0 is a Sub-filtered gradient, every later
row an Up-filtered constant step, so the image is a horizontal gradient with a vertical ramp that
wraps every 256 rows (sharp edges, so a resize has real work to do). The JPEG is a PPM of
diagonal stripes encoded by `cjpeg -quality 90`, with an APP1 Exif segment (one IFD entry:
Orientation) spliced in after SOI.
"""
import argparse, struct, subprocess, sys, zlib


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(path, width, height, alpha=False):
    """An 8-bit RGBA PNG. `alpha`: the alpha channel is a horizontal sawtooth (real transparency);
    otherwise every pixel is opaque (an RGBA file whose alpha a converter may drop)."""
    first = bytearray(width * 4)
    for x in range(width):
        first[4 * x] = x * 255 // max(1, width - 1)      # R: gradient across the width
        first[4 * x + 1] = (x // 7) & 0xFF               # G: a finer sawtooth
        first[4 * x + 2] = 255 - first[4 * x]            # B: the opposite gradient
        first[4 * x + 3] = (x & 0xFF) if alpha else 255  # A
    # Sub filter (1): each byte minus the byte 4 to its left.
    sub = bytearray(len(first))
    for i in range(len(first)):
        sub[i] = (first[i] - (first[i - 4] if i >= 4 else 0)) & 0xFF
    # Up filter (2): every later row adds (1, 0, 2, 0) to the one above: R and B ramp and wrap.
    step = b"\x02" + b"\x01\x00\x02\x00" * width
    z = zlib.compressobj(9)
    parts = [z.compress(b"\x01" + bytes(sub))]
    for _ in range(height - 1):
        parts.append(z.compress(step))
    parts.append(z.flush())
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", b"".join(parts))
                + _chunk(b"IEND", b""))


def exif_app1(orientation):
    """An APP1 Exif segment holding one IFD0 entry: Orientation (0x0112, SHORT) = `orientation`."""
    tiff = b"MM\x00\x2a" + struct.pack(">I", 8)
    tiff += struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(">I", 0)
    body = b"Exif\x00\x00" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body


def jpeg(path, width, height, orientation=1, quality=90):
    """A baseline JPEG of diagonal stripes and gradients, with EXIF `orientation` (1: no Exif)."""
    period = 384
    base = bytearray()
    for x in range(width + period * 2):
        base += bytes(((x * 2) & 0xFF, (x * 255 // (width + period * 2)) & 0xFF, (x // 3 * 5) & 0xFF))
    rows = []
    for y in range(height):
        start = 3 * ((y * 3) % period)  # each row shifted: diagonal stripes
        rows.append(base[start:start + 3 * width])
    ppm = b"P6\n%d %d\n255\n" % (width, height) + b"".join(rows)
    out = subprocess.run(["cjpeg", "-quality", str(quality)], input=ppm, stdout=subprocess.PIPE, check=True).stdout
    if orientation != 1:
        assert out[:2] == b"\xff\xd8"
        out = out[:2] + exif_app1(orientation) + out[2:]
    with open(path, "wb") as f:
        f.write(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kind", choices=["png", "jpeg"])
    ap.add_argument("path")
    ap.add_argument("width", type=int)
    ap.add_argument("height", type=int)
    ap.add_argument("--alpha", action="store_true", help="png: alpha that varies (else opaque)")
    ap.add_argument("--orientation", type=int, default=1, help="jpeg: EXIF orientation 1-8")
    args = ap.parse_args()
    if args.kind == "png":
        png(args.path, args.width, args.height, alpha=args.alpha)
    else:
        jpeg(args.path, args.width, args.height, orientation=args.orientation)


if __name__ == "__main__":
    sys.exit(main())
