#!/usr/bin/env bash
# Regenerates the small fixtures in TestImages/. Run once by hand; the outputs are committed.
# Needs Debian's imagemagick and webp packages (convert, cwebp, img2webp) and python3.
# Everything is deterministic (fixed seeds, no timestamps) so a rerun gives the same pixels.
set -euo pipefail
cd "$(dirname "$0")"
command -v convert >/dev/null && convert -version | grep -q ImageMagick || { echo "needs ImageMagick: apt-get install imagemagick" >&2; exit 1; }
command -v cwebp >/dev/null || { echo "needs cwebp: apt-get install webp" >&2; exit 1; }
strip=(-strip -define png:exclude-chunks=date,time)

# A photo-like scene: plasma noise over a gradient, fixed seed.
convert -seed 7 -size 1600x1200 plasma:steelblue-orange -blur 0x1 "${strip[@]}" /tmp/pa-scene.png
convert /tmp/pa-scene.png -quality 88 -sampling-factor 2x2 "${strip[@]}" photo-1600x1200.jpg
convert /tmp/pa-scene.png -resize 320x240 -quality 85 "${strip[@]}" small-320x240.jpg
convert /tmp/pa-scene.png -resize 640x480 -interlace JPEG -quality 85 "${strip[@]}" progressive-640x480.jpg
convert /tmp/pa-scene.png -resize 400x300 -colorspace Gray -quality 85 "${strip[@]}" gray-400x300.jpg
# A large image that needs fitting: 4000x3000 (12 MP; 48 MB decoded, over the NSE budget).
convert -seed 11 -size 4000x3000 plasma:darkgreen-khaki -blur 0x2 -quality 80 "${strip[@]}" large-4000x3000.jpg

# PNGs: opaque, real alpha, and an alpha channel that is all opaque.
convert /tmp/pa-scene.png -resize 300x200 "${strip[@]}" PNG24:opaque-300x200.png
convert -size 256x256 radial-gradient:'rgba(255,0,0,1)'-'rgba(0,0,255,0)' "${strip[@]}" PNG32:alpha-256x256.png
convert /tmp/pa-scene.png -resize 200x150 -alpha set -channel A -evaluate set 100% +channel "${strip[@]}" PNG32:opaque-alpha-200x150.png

# WebP: lossy, lossless with alpha, animated (three frames).
cwebp -quiet -q 80 small-320x240.jpg -o lossy-320x240.webp
cwebp -quiet -lossless alpha-256x256.png -o alpha-lossless-256x256.webp
for i in 0 1 2; do convert -size 120x90 "xc:hsl($((i * 120)),80%,50%)" "${strip[@]}" "/tmp/pa-frame$i.png"; done
img2webp -loop 0 -d 200 -lossy /tmp/pa-frame0.png /tmp/pa-frame1.png /tmp/pa-frame2.png -o animated-120x90.webp 2>/dev/null

# GIF: animated, three frames.
convert -delay 20 -loop 0 /tmp/pa-frame0.png /tmp/pa-frame1.png /tmp/pa-frame2.png animated-120x90.gif

# Traps: a JPEG named .png, a truncated JPEG, text that is not media.
cp small-320x240.jpg jpeg-named.png
head -c 6000 photo-1600x1200.jpg > truncated.jpg
printf 'This is not an image.\n' > not-media.txt

# Audio: one second of a 440 Hz tone as 16-bit mono WAV.
python3 - <<'PY'
import math, struct, wave
with wave.open("tone-1s.wav", "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
    w.writeframes(b"".join(struct.pack("<h", int(12000 * math.sin(2 * math.pi * 440 * i / 8000))) for i in range(8000)))
PY
rm -f /tmp/pa-scene.png /tmp/pa-frame*.png
ls -l
