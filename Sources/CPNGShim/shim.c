#include "CPNGShim.h"
int pa_png_shim_placeholder(void) { return 0; }
