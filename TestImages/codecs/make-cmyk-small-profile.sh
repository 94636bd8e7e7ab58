#!/bin/sh
# Makes `cmyk_small_profile.jpg`: a 48x32 CMYK JPEG (Adobe APP14, transform 0: plain CMYK, not
# YCCK) with a tiny CMYK ICC profile (v4 output class, AToB0 only: a 3x3x3x3 CLUT from the naive
# CMYK -> sRGB formula through lcms2's sRGB into Lab; 952 bytes), so the CMYK colour path and the
# jpeg fuzz harness (whose inputs stop at 256 KB, while the corpus's profiled CMYK files carry a
# 557 KB SWOP profile) have a profiled file of their own. Run once from the repository root with
# gcc, liblcms2-dev and a venv with Pillow:
#     sh TestImages/codecs/make-cmyk-small-profile.sh
# The JPEG is committed (and copied to Fuzz/seeds/jpeg/); tests never run this.
set -eu
out="TestImages/codecs"
python="${PYTHON:-Benchmarks/.venv/bin/python}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/profile.c" <<'C'
#include <lcms2.h>

static cmsInt32Number sample(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
    cmsFloat64Number rgb[3];
    cmsFloat64Number k = 1.0 - in[3] / 65535.0;
    for (int i = 0; i < 3; i++) rgb[i] = (1.0 - in[i] / 65535.0) * k;
    cmsCIELab lab;
    cmsDoTransform((cmsHTRANSFORM)cargo, rgb, &lab, 1);
    cmsFloat2LabEncoded(out, &lab);
    return 1;
}

int main(int argc, char **argv) {
    cmsHPROFILE srgb = cmsCreate_sRGBProfile(), lab = cmsCreateLab4Profile(NULL);
    cmsHTRANSFORM toLab = cmsCreateTransform(srgb, TYPE_RGB_DBL, lab, TYPE_Lab_DBL, INTENT_PERCEPTUAL, 0);
    cmsHPROFILE p = cmsCreateProfilePlaceholder(NULL);
    cmsSetProfileVersion(p, 4.3);
    cmsSetDeviceClass(p, cmsSigOutputClass);
    cmsSetColorSpace(p, cmsSigCmykData);
    cmsSetPCS(p, cmsSigLabData);
    cmsPipeline *pipe = cmsPipelineAlloc(NULL, 4, 3);
    cmsStage *clut = cmsStageAllocCLut16bit(NULL, 3, 4, 3, NULL);
    cmsStageSampleCLut16bit(clut, sample, toLab, 0);
    // lutAtoBType wants curves around the CLUT: identity ones.
    cmsPipelineInsertStage(pipe, cmsAT_END, cmsStageAllocToneCurves(NULL, 4, NULL));
    cmsPipelineInsertStage(pipe, cmsAT_END, clut);
    cmsPipelineInsertStage(pipe, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL));
    cmsWriteTag(p, cmsSigAToB0Tag, pipe);
    cmsMLU *name = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(name, "en", "US", "PushAttach test CMYK (naive, 3-point CLUT)");
    cmsWriteTag(p, cmsSigProfileDescriptionTag, name);
    cmsWriteTag(p, cmsSigMediaWhitePointTag, cmsD50_XYZ());
    return cmsSaveProfileToFile(p, argv[1]) ? 0 : 1;
}
C
gcc -O1 -o "$tmp/profile" "$tmp/profile.c" -llcms2
"$tmp/profile" "$tmp/small.icc"
"$python" - "$tmp/small.icc" "$out/cmyk_small_profile.jpg" <<'PY'
import sys
from PIL import Image
icc = open(sys.argv[1], "rb").read()
# Ink ramps: C across, M down, Y and K in bands, so every channel matters.
w, h = 48, 32
image = Image.new("CMYK", (w, h))
image.putdata([(x * 255 // (w - 1), y * 255 // (h - 1), 255 * ((x // 12) % 2), 60 * (y // 8))
               for y in range(h) for x in range(w)])
image.save(sys.argv[2], quality=95, icc_profile=icc)
print(len(icc), "byte profile", file=sys.stderr)
PY
mkdir -p Fuzz/seeds/jpeg
cp "$out/cmyk_small_profile.jpg" Fuzz/seeds/jpeg/
