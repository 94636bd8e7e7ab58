#!/bin/sh
# Regenerates the ImageCodecs reference images from the shared corpus. Run once, from the
# repository root, with ImageMagick 6 installed (`apt-get install imagemagick`):
#     sh TestImages/codecs/make-references.sh
# The outputs are committed; tests never run ImageMagick.
set -eu
corpus="${PUSHATTACH_CORPUS:-../shared/corpus}"
out="TestImages/codecs"

# CMYK/YCCK JPEGs get lcms2 references from make-srgb-references.py (embedded profile) and
# make-default-cmyk-references.py (the default CMYK profile).

# A PNG whose iCCP chunk is deflate-compressed by real zlib (Python's zlib module, level 9;
# ImageMagick without lcms will not attach a profile), to test ImageCodecs' inflater; plus the
# raw profile it should inflate to.
convert "$corpus/photos/canon_powershot_s90_444.jpg" "$out/canon_s90.icc"
convert -size 24x16 gradient:red-blue -depth 8 -strip "PNG24:$out/gradient_iccp.png"
python3 - "$out/gradient_iccp.png" "$out/canon_s90.icc" <<'PY'
import struct, sys, zlib
png_path, icc_path = sys.argv[1], sys.argv[2]
png = open(png_path, "rb").read()
data = b"canon s90\0\0" + zlib.compress(open(icc_path, "rb").read(), 9)
chunk = struct.pack(">I", len(data)) + b"iCCP" + data + struct.pack(">I", zlib.crc32(b"iCCP" + data))
ihdr_end = 8 + 25
open(png_path, "wb").write(png[:ihdr_end] + chunk + png[ihdr_end:])
PY
