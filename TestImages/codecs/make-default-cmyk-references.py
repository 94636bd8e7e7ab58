#!/usr/bin/env python3
"""CMYK JPEGs without a profile, and their sRGB references through the default CMYK profile.

Run once from the repository root, in a venv with Pillow (13.0, its wheel's lcms2 2.19):
    /tmp/venv/bin/python TestImages/codecs/make-default-cmyk-references.py
The files are committed; tests never run Python.

- `cmyk_no_profile_160.jpg`: the corpus photo `photos/cmyk_canon_eos300d_wikimedia.jpg`
  (real press CMYK, with black ink), its centre 320x240 halved to 160x120 in CMYK, saved by
  Pillow at quality 92 without its profile (Adobe APP14, inverted CMYK, as Photoshop writes).
- `*_default_srgb.png`: Pillow decodes the JPEG (undoing Adobe's inversion) and ImageCms
  converts it with `Sources/CDefaultCMYKProfile/ChemicalProof.icc` to lcms2's built-in sRGB,
  relative colorimetric with black point compensation: the transform ImageCodecs builds for a
  CMYK file without a profile (`DefaultCMYKProfile`).
"""
from PIL import Image, ImageCms

codecs = "TestImages/codecs"
photo = Image.open("TestImages/conformance/photos/cmyk_canon_eos300d_wikimedia.jpg")
assert photo.mode == "CMYK"
left, top = (photo.width - 320) // 2, (photo.height - 240) // 2
small = photo.crop((left, top, left + 320, top + 240)).resize((160, 120), Image.Resampling.LANCZOS)
small.save(f"{codecs}/cmyk_no_profile_160.jpg", quality=92)  # Pillow writes Adobe CMYK

default = ImageCms.getOpenProfile("Sources/CDefaultCMYKProfile/ChemicalProof.icc")
srgb = ImageCms.createProfile("sRGB")
CASES = [
    (f"{codecs}/cmyk_no_profile_160.jpg", "cmyk_no_profile_160_default_srgb.png", None),
    # The photo with its profile stripped (sharp's fixture): the centre 128x128 at (186, 102).
    ("TestImages/conformance/jpeg/misc/sharp_cmyk_no_profile.jpg", "sharp_cmyk_no_profile_default_srgb_center128.png",
     (186, 102, 314, 230)),
    ("TestImages/conformance/jpeg/misc/pillow_pil_sample_cmyk.jpg", "pillow_pil_sample_cmyk_default_srgb.png", None),
]
for source, name, crop in CASES:
    image = Image.open(source)
    assert image.mode == "CMYK" and "icc_profile" not in image.info, source
    out = ImageCms.profileToProfile(
        image, default, srgb, renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC, outputMode="RGB",
        flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)
    if crop:
        out = out.crop(crop)
    out.save(f"{codecs}/{name}", optimize=True)
    print(name, out.size)
