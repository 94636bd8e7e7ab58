#!/usr/bin/env bash
# The JPEGs JPEGDCDecoderTests and ValidationByDCTests read: each a layout the DC-only reader must get right
# (or refuse), cut from the repository's own photo-1600x1200.jpg. Run once by hand; the outputs
# are committed. Needs cjpeg and djpeg (Debian's libjpeg-turbo-progs, 2.1.5) and ImageMagick.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p dc
# Odd sizes, so the last MCU row and column are partly padding.
djpeg -pnm ../photo-1600x1200.jpg | convert - -crop 203x149+500+400 +repage ppm:/tmp/pa-dc.ppm
cjpeg -quality 85 -sample 2x2 -restart 1B /tmp/pa-dc.ppm > dc/restart-every-mcu-420.jpg
cjpeg -quality 90 -sample 1x1 -restart 2 /tmp/pa-dc.ppm > dc/restart-two-rows-444.jpg
cjpeg -quality 92 -sample 2x1 -optimize /tmp/pa-dc.ppm > dc/optimized-422.jpg
cjpeg -quality 80 -sample 1x2 /tmp/pa-dc.ppm > dc/sampled-440.jpg
cjpeg -quality 100 -sample 2x2 /tmp/pa-dc.ppm > dc/quality-100-420.jpg
cjpeg -quality 85 -grayscale /tmp/pa-dc.ppm > dc/gray.jpg
cjpeg -quality 85 -sample 4x1 /tmp/pa-dc.ppm > dc/sampled-411.jpg
cjpeg -quality 85 -arithmetic /tmp/pa-dc.ppm > dc/arithmetic.jpg
cjpeg -quality 85 -progressive /tmp/pa-dc.ppm > dc/progressive.jpg
# Progressive with restart markers (end-of-band runs and DC predictions reset at each), and 4:2:2.
cjpeg -quality 85 -progressive -sample 2x2 -restart 1B /tmp/pa-dc.ppm > dc/progressive-restart-every-mcu-420.jpg
cjpeg -quality 90 -progressive -sample 2x1 -restart 1 /tmp/pa-dc.ppm > dc/progressive-restart-rows-422.jpg
# Luma sampled below its chroma (1x1 luma, 2x2 chroma): libjpeg doubles the luma's IDCT at odd scales.
cjpeg -quality 85 -sample 1x1,2x2,2x2 /tmp/pa-dc.ppm > dc/sampled-luma-1x1-chroma-2x2.jpg
rm -f /tmp/pa-dc.ppm
