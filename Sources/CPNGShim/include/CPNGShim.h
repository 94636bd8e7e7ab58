#ifndef PUSHATTACH_CPNGSHIM_H
#define PUSHATTACH_CPNGSHIM_H
/*
 * libpng's sequential read API behind setjmp, for the Swift PNG row decoder, with a faster reader
 * of its own for the common file in front of it (fast.c: ISA-L's inflate).
 *
 *     pa_png_decoder *d = pa_png_decoder_create(bytes, length, &limits);
 *     pa_png_header header;
 *     if (pa_png_decoder_read_header(d, &header) != 0) { puts(pa_png_decoder_error(d)); }
 *     pa_png_decoder_start(d, PA_PNG_OUTPUT_RGBA, &output);
 *     pa_png_decoder_read_rows(d, row, stride, 1);
 *     pa_png_decoder_destroy(d);
 *
 * libpng reports errors with longjmp; every entry point that can reach png_error sets its own
 * setjmp here, in C, so no jump ever crosses a Swift frame. An entry point returns 0 on success
 * and -1 after an error, whose message pa_png_decoder_error then holds; a decoder that failed
 * stays failed. Warnings (and libpng's benign errors, read as warnings) are copied into the
 * handle as they come. A decoder has no shared state: one decoder per thread at a time, any
 * number of decoders at once.
 */
#include <stddef.h>
#include <stdint.h>

/* An opaque libpng read struct + info struct + the input it reads in place. */
typedef struct pa_png_decoder pa_png_decoder;

/* Limits handed to libpng before it reads IHDR. */
typedef struct pa_png_limits {
    /* png_set_user_limits: largest width and height (each at most 0x7fffffff). */
    uint32_t max_width;
    uint32_t max_height;
    /* png_set_chunk_malloc_max: largest ancillary chunk (iCCP, zTXt, ...) libpng buffers. */
    size_t max_chunk_bytes;
} pa_png_limits;

/* What IHDR (and tRNS) say. */
typedef struct pa_png_header {
    uint32_t width;
    uint32_t height;
    /* 1, 2, 4, 8 or 16. */
    int bit_depth;
    /* PNG_COLOR_TYPE_*: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA. */
    int color_type;
    /* 1 when Adam7-interlaced. */
    int interlaced;
    /* 1 when a tRNS chunk gives transparency (colour types 0, 2, 3). */
    int has_trns;
} pa_png_header;

/* Output layouts, 8 bits per channel (the value is the channel count). */
typedef enum pa_png_output {
    PA_PNG_OUTPUT_GRAY = 1,
    PA_PNG_OUTPUT_RGB = 3,
    PA_PNG_OUTPUT_RGBA = 4
} pa_png_output;

/* The decode set up by pa_png_decoder_start. */
typedef struct pa_png_output_info {
    /* Bytes of one output row (width x channels). */
    size_t row_bytes;
    /* 1, or 7 for an interlaced image (libpng's png_set_interlace_handling). */
    int passes;
    /* Bytes libpng itself holds per row while decoding (its row and previous-row buffers). */
    size_t internal_row_bytes;
} pa_png_output_info;

/* A decoder over `length` bytes at `data`, read in place: the bytes must outlive the decoder.
   NULL when libpng cannot allocate its structs. */
pa_png_decoder *pa_png_decoder_create(const uint8_t *data, size_t length, const pa_png_limits *limits);

/* Frees the decoder and everything libpng allocated for it. NULL is ignored. */
void pa_png_decoder_destroy(pa_png_decoder *decoder);

/* png_read_info: reads every chunk up to the first IDAT. */
int pa_png_decoder_read_header(pa_png_decoder *decoder, pa_png_header *header);

/* Sets the transforms that turn any PNG into `output` (expand palette, low-bit grey and tRNS;
   grey to RGB when `output` has colour; 16 to 8 bits by scaling; file gamma to sRGB as libpng's
   simplified API does), turns on interlace handling and calls png_read_update_info. */
int pa_png_decoder_start(pa_png_decoder *decoder, pa_png_output output, pa_png_output_info *info);

/* Non-interlaced images: reads the next `count` rows into `buffer`, `stride` bytes apart. */
int pa_png_decoder_read_rows(pa_png_decoder *decoder, uint8_t *buffer, size_t stride, uint32_t count);

/* Any image: reads every pass of the whole image into `buffer` (height rows, `stride` bytes
   apart). Interlaced images need this: each pass fills in pixels of rows already handed out. */
int pa_png_decoder_read_image(pa_png_decoder *decoder, uint8_t *buffer, size_t stride);

/* Before pa_png_decoder_start: 0 reads every row with libpng; 1, the default, reads the rows of a
   file fast.c takes (8-bit grey, RGB, grey+alpha or RGBA, not interlaced, no tRNS, no gamma to
   convert) with ISA-L's inflate and its own unfiltering, libpng's rows byte for byte, and hands
   the file to libpng from its first row at anything unusual (for tests that compare). */
void pa_png_decoder_set_fast(pa_png_decoder *decoder, int enabled);
/* 0 when libpng reads the rows (not taken, turned off, or interlaced), 1 while the fast reader
   does (to the end, once every row is read), 2 once it handed the file to libpng. */
int pa_png_decoder_fast_state(const pa_png_decoder *decoder);

/* Rows handed out by pa_png_decoder_read_rows so far (a failed call counts the rows it
   finished before the error). */
uint32_t pa_png_decoder_rows_read(const pa_png_decoder *decoder);
/* The error message of the failed call ("" when none). Valid until the decoder is destroyed. */
const char *pa_png_decoder_error(const pa_png_decoder *decoder);

/* Warnings kept so far (at most PA_PNG_MAX_WARNINGS; later ones are counted, not kept). */
size_t pa_png_decoder_warning_count(const pa_png_decoder *decoder);
/* Warnings after the first PA_PNG_MAX_WARNINGS, counted but dropped. */
size_t pa_png_decoder_warnings_dropped(const pa_png_decoder *decoder);
/* Warning `index` (< pa_png_decoder_warning_count). Valid until the decoder is destroyed. */
const char *pa_png_decoder_warning(const pa_png_decoder *decoder, size_t index);

/* For the writer: each of `height` rows of `pixels` (`stride` bytes apart, `row_bytes` each, 8-bit
   samples, `bpp` bytes a pixel) into `out` as PNG's filtered image data before compression: a
   filter-type byte, then the filtered row ((row_bytes + 1) x height bytes in all). With
   `adaptive`, each row's type is the one of the five whose output has the least sum of
   magnitudes (libpng's heuristic for 8-bit images); without, Up for every row but the first
   (None). 0, or -1 when memory for two rows runs out. */
int pa_png_filter_rows(const uint8_t *pixels, size_t stride, size_t row_bytes, uint32_t height, int bpp,
                       int adaptive, uint8_t *out);

#define PA_PNG_MAX_WARNINGS 16
#define PA_PNG_MESSAGE_BYTES 200

#endif
