#!/usr/bin/env python3
"""Reference frames for the animation decoder tests, made once with Pillow (run from the repository root):

    Benchmarks/.venv/bin/python TestImages/codecs/animation/make-references.py

For each fixture, every frame composited onto the canvas by Pillow, converted to RGBA, stacked top to
bottom into one PNG (<name>.frames.png) -- or, for the large photo animation in HASH_ONLY, the 64-bit FNV-1a
hash of each frame's RGBA bytes in hex, one a line (<name>.frames.fnv1a) -- and a TSV line: file, canvas, frame count, loop, durations (ms).
"""
import sys
from pathlib import Path

from PIL import Image, ImageSequence, __version__

FIXTURES = [
    "conformance/gif/pillow_dispose_bgnd.gif",
    "conformance/gif/pillow_dispose_prev.gif",
    "conformance/gif/pillow_different_transparency.gif",
    "conformance/gif/sharp_animated-loop-3.gif",
    "conformance/gif/sharp_rotating-squares.gif",
    "conformance/gif/pillow_iss634.gif",
    "conformance/gif/mei_photoshop-8x12-32colors-alpha.gif",
    "animated-120x90.gif",
    "conformance/webp/misc/sharp_animated-loop-3.webp",
    "conformance/webp/misc/sharp_rotating-squares_animated.webp",
    "conformance/webp/image-webp/animated/random_lossy.webp",
    "animated-120x90.webp",
]

def fnv1a64(data: bytes) -> str:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


HASH_ONLY = {"conformance/gif/pillow_iss634.gif"}  # 245x245 x 42 frames of photo: 1.7 MB as PNG

root = Path("TestImages")
out = root / "codecs" / "animation"
lines = [f"# Pillow {__version__}: file\twidth\theight\tframes\tloop\tdurations_ms"]
for relative in FIXTURES:
    image = Image.open(root / relative)
    frames = []
    durations = []
    for frame in ImageSequence.Iterator(image):
        frames.append(frame.convert("RGBA"))
        durations.append(str(frame.info.get("duration", 0)))
    width, height = image.size
    name = relative.replace("/", "_") + ".frames"
    if relative in HASH_ONLY:
        hashes = [fnv1a64(frame.tobytes()) for frame in frames]
        (out / (name + ".fnv1a")).write_text("\n".join(hashes) + "\n")
        frames = []
    strip = Image.new("RGBA", (width, height * len(frames)))
    for i, frame in enumerate(frames):
        strip.paste(frame, (0, i * height))
    if frames:
        strip.save(out / (name + ".png"), optimize=True)
    count = len(frames) or len(durations)
    loop = image.info.get("loop", "none")
    lines.append(f"{relative}\t{width}\t{height}\t{count}\t{loop}\t{','.join(durations)}")
(out / "references.tsv").write_text("\n".join(lines) + "\n")
print("\n".join(lines))
