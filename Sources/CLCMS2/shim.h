#include <lcms2.h>

// lcms2's pixel formats are built from function-like macros (COLORSPACE_SH, CHANNELS_SH...),
// which Swift cannot import; these constants carry the ones ImageCodecs uses.
static const cmsUInt32Number PA_LCMS_TYPE_RGB_8 = TYPE_RGB_8;
static const cmsUInt32Number PA_LCMS_TYPE_CMYK_8 = TYPE_CMYK_8;
/// CMYK stored inverted (0 = full ink), as Adobe applications write it.
static const cmsUInt32Number PA_LCMS_TYPE_CMYK_8_REV = TYPE_CMYK_8_REV;

// The plugin API (optimisation plugins), and lcms2's own optimiser: exported by liblcms2
// (CMSEXPORT) but declared only in its internal header. `CMYKColorTransform` calls it from an
// optimisation plugin to read the table lcms2 makes of a transform (`CMYKLookupTable`).
#include <lcms2_plugin.h>
CMSAPI cmsBool CMSEXPORT _cmsOptimizePipeline(cmsContext ContextID, cmsPipeline** Lut, cmsUInt32Number Intent,
                                              cmsUInt32Number* InputFormat, cmsUInt32Number* OutputFormat,
                                              cmsUInt32Number* dwFlags);
