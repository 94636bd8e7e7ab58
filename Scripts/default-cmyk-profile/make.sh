#!/bin/sh
# Makes Sources/CDefaultCMYKProfile/ChemicalProof.icc: libvips' built-in "cmyk"
# profile ("Chemical proof", by Graeme W. Gill, public domain: its cprt tag says "Released into
# the public domain"), with its characterization data (the targ/DevD/CIED text tags, 734 KB of
# measurement text no transform reads) left out: 961,644 -> 227,452 bytes, every table kept.
# Run once from the repository root in a venv with pyvips (its wheel carries libvips 8.18):
#     python3 -m venv /tmp/venv && /tmp/venv/bin/pip install "pyvips[binary]"
#     PYTHON=/tmp/venv/bin/python sh Scripts/default-cmyk-profile/make.sh
# The profile is committed; the build never runs this (profile.c compiles the file in with #embed).
set -eu
python="${PYTHON:-Benchmarks/.venv/bin/python}"
out="Sources/CDefaultCMYKProfile"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$python" -c 'import pyvips, sys; open(sys.argv[1], "wb").write(pyvips.Operation.call("profile_load", "cmyk"))' "$tmp/cmyk.icm"
python3 Scripts/default-cmyk-profile/strip.py "$tmp/cmyk.icm" "$out/ChemicalProof.icc"
