"""Makes the HEIF/AVIF fixtures' inputs and their reference decodes (see make-fixtures.sh).

  python fixtures.py prepare CORPUS TMP     stored-orientation PNGs from the corpus photos
  python fixtures.py fix-ispe FILE ORIENT  swap the ispe of an orientation 5...8 file (libheif 1.15 bug)
  python fixtures.py reference TMP          decode each fixture (HEIC: Pillow + pillow-heif; AVIF: pyvips),
                                            check it is the source turned by its orientation, and
                                            write <fixture>.reference.png (upright)
"""
import sys
import numpy as np
from PIL import Image, ImageOps

# fixture, corpus photo, long side, bits, orientation (Exif numbering, written as irot/imir), quality, alpha
FIXTURES = [
    ("heic-8bit-orient6.heic", "photos/canon_eos_1000d_orient6.jpg", 1024, 8, 6, 50, False),
    ("heic-10bit-orient8.heic", "photos/nikon_d3100.jpg", 960, 10, 8, 50, False),
    ("avif-alpha-orient2.avif", "photos/olympus_e-p3.jpg", 800, 8, 2, 60, True),
]

# How a decoder that honours the orientation turns the stored pixels (PIL transposes).
TURN = {1: None, 2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
        4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270,
        7: Image.Transpose.TRANSVERSE, 8: Image.Transpose.ROTATE_90}


def stored_png(tmp, name):
    return f"{tmp}/{name}.stored.png"


def prepare(corpus, tmp):
    for name, photo, side, _bits, _orientation, _q, alpha in FIXTURES:
        im = Image.open(f"{corpus}/{photo}")
        im.draft("RGB", (side * 2, side * 2))  # a DCT-scaled decode; the pixels as stored (no Exif turn)
        im = im.convert("RGB")
        im.thumbnail((side, side), Image.LANCZOS)
        # Even sides: libheif 1.15 writes an odd-sized 4:2:0 image with an ispe newer libheif
        # versions refuse ("Decoded image does not have the size signaled in the file").
        im = im.crop((0, 0, im.width // 2 * 2, im.height // 2 * 2))
        if alpha:
            # An elliptical vignette: opaque inside, a soft edge, transparent corners.
            w, h = im.size
            y, x = np.mgrid[0:h, 0:w]
            r = np.sqrt(((x - w / 2) / (w / 2)) ** 2 + ((y - h / 2) / (h / 2)) ** 2)
            a = np.clip((1.0 - r) / 0.25, 0, 1) * 255
            im.putalpha(Image.fromarray(a.round().astype(np.uint8), "L"))
        im.save(stored_png(tmp, name))
        print(name, im.size, im.mode)


def fix_ispe(path, orientation):
    """libheif 1.15 writes `ispe` as the size AFTER the orientation it was given (682x1024 for a
    1024x682 image with irot), where ISO/IEC 23008-12 wants the coded size, and newer libheif
    (and iOS) refuse the file. For the quarter-turn orientations the sides are swapped back."""
    import struct
    if orientation < 5:
        return
    data = bytearray(open(path, "rb").read())
    at = data.find(b"ispe")
    assert at > 0 and data.find(b"ispe", at + 4) < 0, f"{path}: expected one ispe box"
    w, h = struct.unpack(">II", data[at + 8:at + 16])
    data[at + 8:at + 16] = struct.pack(">II", h, w)
    open(path, "wb").write(data)
    print(f"{path}: ispe {w}x{h} -> {h}x{w}")


def ssim_luma(a, b):
    from skimage.metrics import structural_similarity
    la = np.asarray(a.convert("L"), dtype=np.float64)
    lb = np.asarray(b.convert("L"), dtype=np.float64)
    return structural_similarity(la, lb, data_range=255)


def reference(tmp):
    import pillow_heif
    pillow_heif.register_heif_opener()
    for name, _photo, _side, _bits, orientation, _q, alpha in FIXTURES:
        if name.endswith(".avif"):
            # Pillow's AVIF plugin (libavif) refuses libheif 1.15's AVIF in its strict mode
            # ("BMFF parsing failed": no `pixi` property), and pillow-heif has no AV1 decoder:
            # libvips (pyvips-binary, its libheif with dav1d) decodes it, transforms applied.
            import pyvips
            v = pyvips.Image.new_from_file(name)
            im = Image.fromarray(v.numpy(), "RGBA" if v.bands == 4 else "RGB")
        else:
            im = Image.open(name)
            im.load()
            # pillow-heif's libheif applies irot/imir; exif_transpose is a no-op then.
            im = ImageOps.exif_transpose(im)
        im = im.convert("RGBA" if alpha else "RGB")
        source = Image.open(stored_png(tmp, name)).convert("RGBA" if alpha else "RGB")
        expected = source if TURN[orientation] is None else source.transpose(TURN[orientation])
        assert im.size == expected.size, f"{name}: decoded {im.size}, expected upright {expected.size}"
        s = ssim_luma(im, expected)
        wrong = ssim_luma(im.resize(source.size), source) if source.size != expected.size else None
        print(f"{name}: {im.size} {im.mode}, luma SSIM vs source turned by {orientation}: {s:.4f}"
              + (f" (vs unturned: {wrong:.4f})" if wrong is not None else ""))
        assert s > 0.9, f"{name}: the reference decode is not the source turned by orientation {orientation}"
        im.save(name.rsplit(".", 1)[0] + ".reference.png", optimize=True)


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "fix-ispe":
        fix_ispe(sys.argv[2], int(sys.argv[3]))
    else:
        reference(sys.argv[2])
