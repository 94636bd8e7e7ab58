#!/usr/bin/env bash
# Makes the HEIC/AVIF fixtures in this folder from the public corpus (../shared/corpus beside the
# repository, or $CORPUS) and their reference decodes. Needs libheif-dev and libpng-dev (Debian 12: libheif
# 1.15.1 with x265 and aom), and a Python with Pillow, pillow-heif, pyvips + pyvips-binary,
# numpy and scikit-image ($PYTHON, e.g. a venv; never needed by `make test`). Writes:
#   heic-8bit-orient6.heic, heic-10bit-orient8.heic, avif-alpha-orient2.avif
#   <fixture>.reference.png   the upright decode: Pillow + pillow-heif (HEIC), libvips (AVIF)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
corpus="${CORPUS:-$here/../../../../shared/corpus}"
python="${PYTHON:-python3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cc -O2 "$here/orient-encode.c" -o "$tmp/orient-encode" $(pkg-config --cflags --libs libheif libpng)
cd "$here"
"$python" fixtures.py prepare "$corpus" "$tmp"
"$tmp/orient-encode" "$tmp/heic-8bit-orient6.heic.stored.png" heic-8bit-orient6.heic 8 6 50
"$python" fixtures.py fix-ispe heic-8bit-orient6.heic 6
"$tmp/orient-encode" "$tmp/heic-10bit-orient8.heic.stored.png" heic-10bit-orient8.heic 10 8 50
"$python" fixtures.py fix-ispe heic-10bit-orient8.heic 8
"$tmp/orient-encode" "$tmp/avif-alpha-orient2.avif.stored.png" avif-alpha-orient2.avif 8 2 60
"$python" fixtures.py reference "$tmp"
ls -l *.heic *.avif *.png
