#ifndef PUSHATTACH_CPNGSHIM_H
#define PUSHATTACH_CPNGSHIM_H
/* libpng's row API behind setjmp (filled in by the PNG row decoder work). */
int pa_png_shim_placeholder(void);
#endif
