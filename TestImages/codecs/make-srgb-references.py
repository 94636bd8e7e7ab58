#!/usr/bin/env python3
"""Reference sRGB decodes of the CMYK/YCCK JPEGs that embed a CMYK ICC profile.

Run once from the repository root, in a venv with Pillow (13.0, its wheel's lcms2 2.19):
    python3 -m venv Benchmarks/.venv && Benchmarks/.venv/bin/pip install Pillow
    Benchmarks/.venv/bin/python TestImages/codecs/make-srgb-references.py
The PNGs are committed; tests never run Python.

Pillow decodes Adobe CMYK as ink amounts (it undoes the inversion) and ImageCms converts with
the embedded profile to lcms2's built-in sRGB, perceptual intent (Pillow's default), the
same transform ImageCodecs builds (`CMYKColorTransform`).
"""
import io
import sys

from PIL import Image, ImageCms

CASES = [
    ("TestImages/conformance/photos/cmyk_canon_eos300d_wikimedia.jpg", "cmyk_canon_eos300d_srgb.png"),
    ("TestImages/conformance/jpeg/misc/mei_multiple_icc_segments_cmyk.jpg", "mei_multiple_icc_segments_srgb.png"),
    # Plain CMYK (Adobe transform 0) with a 952-byte profile, from make-cmyk-small-profile.sh.
    ("TestImages/codecs/cmyk_small_profile.jpg", "cmyk_small_profile_srgb.png"),
]

srgb = ImageCms.createProfile("sRGB")
for source, name in CASES:
    image = Image.open(source)
    assert image.mode == "CMYK", (source, image.mode)
    profile = ImageCms.ImageCmsProfile(io.BytesIO(image.info["icc_profile"]))
    out = ImageCms.profileToProfile(
        image, profile, srgb, renderingIntent=ImageCms.Intent.PERCEPTUAL, outputMode="RGB"
    )
    out.info.pop("icc_profile", None)  # untagged sRGB, as ImageCodecs hands it out (and reproducible)
    out.save("TestImages/codecs/" + name, optimize=True)
    print(name, out.size, file=sys.stderr)
