#!/usr/bin/env bash
# Makes the structure fixtures in this folder: flat images encoded by flat-encode.c (libheif 1.15,
# x265 for HEIC, aom for AVIF; Debian 12 libheif-dev), their boxes then rewritten by
# patch-boxes.py (Python standard library). Deterministic encoders, so a rerun gives the same bytes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cc -O2 "$here/flat-encode.c" -o "$tmp/flat-encode" $(pkg-config --cflags --libs libheif)
cd "$tmp"
./flat-encode small.heic 64 64
./flat-encode small.avif 64 64
./flat-encode big.heic 12000 9000          # 108 MP; x265 needs ~1.2 GB and 30 s, aom ~1.4 GB and 5 min
./flat-encode big.avif 12000 9000
./flat-encode mono.heic 64 48 60 mono
./flat-encode mono.avif 64 48 60 mono
patch() { python3 "$here/patch-boxes.py" "$@"; }
patch ispe big.heic "$here/coded-12000x9000-ispe-64x64.heic" 64 64
patch ispe big.avif "$here/coded-12000x9000-ispe-64x64.avif" 64 64
patch iden small.heic "$here/iden.heic" 1
patch iden small.heic "$here/iden-of-iden.heic" 2
patch pred small.heic "$here/pred.heic"
patch base small.heic "$here/base-avc1.heic" avc1
patch nclx mono.heic "$here/mono-limited-nclx.heic" 0
cp mono.avif "$here/mono-limited-nclx.avif"
patch drop-colr mono.avif "$here/mono-limited-seqhdr.avif"
patch clap small.heic "$here/clap-48x40.heic" 48 40
patch grid small.heic "$here/grid-2x2-irot90.heic" 2 2 100 120 1
patch grid small.avif "$here/grid-2x2.avif" 2 2 100 120 0
