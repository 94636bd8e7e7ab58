/*
 * The common PNG's rows without libpng: see fast.c. Internal to CPNGShim (shim.c runs it in front
 * of libpng's row reader and hands over to libpng at anything it does not take).
 */
#ifndef PA_PNG_FAST_H
#define PA_PNG_FAST_H

#include <stddef.h>
#include <stdint.h>

typedef struct pa_png_fast pa_png_fast;

/* A reader of the image data of `data` (`length` bytes, read in place), whose first IDAT chunk
   starts at `idat` (its length field), for an 8-bit, non-interlaced image `width` x `height` of
   PNG colour type `colour_type` (0 grey, 2 RGB, 4 grey+alpha, 6 RGBA), giving rows of
   `out_channels` bytes a pixel (as the file's, or 4 for grey+alpha: grey spread to RGB). NULL
   for anything else or when memory runs out. */
pa_png_fast *pa_png_fast_create(const uint8_t *data, size_t length, size_t idat, uint32_t width, uint32_t height,
                                int colour_type, int out_channels);
void pa_png_fast_destroy(pa_png_fast *fast);

/* The next `count` rows into `buffer`, `stride` bytes apart: the number of rows written, fewer
   than `count` only at data it does not take (the zlib stream damaged or ended early, a filter
   type over 4, the IDAT chunks ending), after which the reader is of no further use. */
uint32_t pa_png_fast_read_rows(pa_png_fast *fast, uint8_t *buffer, size_t stride, uint32_t count);

/* After the last row: 1 when the zlib stream ends there, its Adler-32 right, with no data after
   it in the IDAT chunks; 0 otherwise (libpng warns about any of those). */
int pa_png_fast_finished_cleanly(pa_png_fast *fast);

/* Bytes one reader holds for an image `width` wide of `channels` bytes a pixel. */
size_t pa_png_fast_memory(uint32_t width, int channels);

#endif
