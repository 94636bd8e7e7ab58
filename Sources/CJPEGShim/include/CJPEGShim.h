#ifndef PUSHATTACH_CJPEGSHIM_H
#define PUSHATTACH_CJPEGSHIM_H
/* libjpeg's scanline API behind setjmp (filled in by the JPEG row decoder work). */
int pa_jpeg_shim_placeholder(void);
#endif
