#include "CJPEGShim.h"
int pa_jpeg_shim_placeholder(void) { return 0; }
