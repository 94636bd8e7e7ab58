#include <lcms2.h>

// lcms2's pixel formats are built from function-like macros (COLORSPACE_SH, CHANNELS_SH...),
// which Swift cannot import; these constants carry the ones ImageCodecs uses.
static const cmsUInt32Number PA_LCMS_TYPE_RGB_8 = TYPE_RGB_8;
static const cmsUInt32Number PA_LCMS_TYPE_CMYK_8 = TYPE_CMYK_8;
/// CMYK stored inverted (0 = full ink), as Adobe applications write it.
static const cmsUInt32Number PA_LCMS_TYPE_CMYK_8_REV = TYPE_CMYK_8_REV;
