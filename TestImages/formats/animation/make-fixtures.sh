#!/usr/bin/env bash
# Makes the animated-WebP fixture and its reference frames (see README.md in this folder).
# Needs: libwebp's img2webp (Debian 12: 1.2.4) and Python 3 with Pillow (Benchmarks/.venv has it:
# Benchmarks/compare sets it up). Deterministic: the frames are drawn from fixed shapes.
#   TestImages/formats/animation/make-fixtures.sh [python]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${1:-$here/../../../Benchmarks/.venv/bin/python}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# 1. Six 160x120 RGBA frames: a colour gradient with a transparent band and a moving disc and
#    square, alpha only 0 or 255 (GIF keeps one transparent index, so a binary alpha survives).
"$python" - "$work" <<'PY'
import sys
from PIL import Image, ImageDraw
work = sys.argv[1]
W, H = 160, 120
for i in range(6):
    im = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    px = im.load()
    for y in range(H):
        for x in range(W):
            if 20 + i * 8 <= x < 44 + i * 8:
                continue  # the transparent band moves right
            px[x, y] = ((x * 255) // (W - 1), (y * 255) // (H - 1), (128 + 20 * i) % 256, 255)
    d = ImageDraw.Draw(im)
    cx, cy = 30 + i * 18, 60 + (i % 3 - 1) * 20
    d.ellipse((cx - 16, cy - 16, cx + 16, cy + 16), fill=(250, 240, 30, 255))
    d.rectangle((100 - i * 10, 10, 124 - i * 10, 34), fill=(20, 40, 200, 255))
    im.save(f"{work}/f{i}.png")
PY

# 2. Assemble: lossless, loop count 3, six different durations (ms), including 30 ms (3 cs).
img2webp -loop 3 -lossless \
    -d 40 "$work/f0.png" -d 80 "$work/f1.png" -d 120 "$work/f2.png" \
    -d 200 "$work/f3.png" -d 30 "$work/f4.png" -d 500 "$work/f5.png" \
    -o "$here/animated-160x120-alpha.webp"

# 3. Reference: Pillow's decode of every frame (composited on the canvas, RGBA), and its durations.
"$python" - "$here" <<'PY'
import sys
from PIL import Image, features
here = sys.argv[1]
im = Image.open(f"{here}/animated-160x120-alpha.webp")
durations = []
for i in range(im.n_frames):
    im.seek(i)
    im.load()  # Pillow fills info["duration"] once the frame is loaded
    durations.append(im.info["duration"])
    im.convert("RGBA").save(f"{here}/reference/frame-{i}.png", optimize=True)
with open(f"{here}/reference/durations.txt", "w") as f:
    f.write(" ".join(str(d) for d in durations) + "\n")
    f.write(f"loop {im.info.get('loop')}\n")
    f.write(f"made by Pillow {Image.__version__} with libwebp {features.version('webp')}\n")
PY
echo "wrote $here/animated-160x120-alpha.webp and reference/"
