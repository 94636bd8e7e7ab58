#ifndef PUSHATTACH_CJPEGSHIM_H
#define PUSHATTACH_CJPEGSHIM_H
/*
 * libjpeg's scanline API (libjpeg-turbo, jpeglib.h) behind setjmp, for the JPEG row decoder.
 *
 * libjpeg reports a fatal error by calling error_exit, which must not return; the only way
 * out is longjmp. A longjmp across Swift frames is undefined behaviour, so every libjpeg call
 * is made here, each entry point sets its own setjmp, and Swift sees a status and a message.
 *
 *     pa_jpeg_decoder *d = pa_jpeg_create(bytes, length, strict);
 *     pa_jpeg_info info;   pa_jpeg_read_header(d, &info);
 *     pa_jpeg_output out;  pa_jpeg_prepare(d, 1, 8, PA_JPEG_OUT_RGB, 0, &out);
 *     pa_jpeg_start(d);    pa_jpeg_read_rows(d, rows, stride, 16, &n);  ...  pa_jpeg_finish(d);
 *     pa_jpeg_destroy(d);
 *
 * One decoder per thread; no globals. The encoded bytes are read in place and must outlive
 * the decoder.
 */
#include <stddef.h>

/* Every call returns one of these; the message is then pa_jpeg_error_message(). */
#define PA_JPEG_OK 0
#define PA_JPEG_ERROR 1

/* The colour space of the stored data (jpeg_color_space); TurboJPEG's TJCS_ order. */
#define PA_JPEG_CS_UNKNOWN -1
#define PA_JPEG_CS_RGB 0
#define PA_JPEG_CS_YCBCR 1
#define PA_JPEG_CS_GRAY 2
#define PA_JPEG_CS_CMYK 3
#define PA_JPEG_CS_YCCK 4

/* Chroma subsampling as TurboJPEG 2.1's getSubsamp() names it (TJSAMP_ order). */
#define PA_JPEG_SAMP_UNKNOWN -1
#define PA_JPEG_SAMP_444 0
#define PA_JPEG_SAMP_422 1
#define PA_JPEG_SAMP_420 2
#define PA_JPEG_SAMP_GRAY 3
#define PA_JPEG_SAMP_440 4
#define PA_JPEG_SAMP_411 5

/* Output pixel formats (out_color_space): JCS_EXT_RGB, JCS_GRAYSCALE, JCS_CMYK; or the stored
   components as they are (raw_data_out: no upsampling, no colour conversion), read with
   pa_jpeg_read_planes instead of pa_jpeg_read_rows. */
#define PA_JPEG_OUT_RGB 0
#define PA_JPEG_OUT_GRAY 1
#define PA_JPEG_OUT_CMYK 2
#define PA_JPEG_OUT_PLANES 3

/* Progressive files with more scans than this are refused (TurboJPEG's TJFLAG_LIMITSCANS). */
#define PA_JPEG_MAX_SCANS 500
/* Kinds of warning (msg_code) kept per decoder, the first text of each; the rest are counted. */
#define PA_JPEG_MAX_WARNINGS 16

typedef struct pa_jpeg_decoder pa_jpeg_decoder;

/* One component of a PA_JPEG_OUT_PLANES decode (after pa_jpeg_prepare). */
typedef struct pa_jpeg_plane {
    unsigned width;          /* samples per row (downsampled_width, at the DCT scale) */
    unsigned height;         /* rows (downsampled_height) */
    unsigned padded_width;   /* bytes libjpeg may write per row: width_in_blocks * DCT_scaled_size */
    unsigned rows_per_group; /* rows one pa_jpeg_read_planes call hands out: v_samp_factor * DCT_scaled_size */
    int h_samp_factor;
    int v_samp_factor;
    /* 1 for a 4:2:0 chroma component that pa_jpeg_start gives the luma's NxN IDCT (N = 3, 5, 6, 7;
       shim.c, pa_jpeg_idct_chroma_at_own_scale): its group then holds the chroma at its own
       scale, half the rows and samples above: the first (rows_per_group + 1) / 2 rows, each with
       (width + 1) / 2 samples from its start, and the rest of the group is not written. */
    int own_scale;
} pa_jpeg_plane;

/* What jpeg_read_header found. */
typedef struct pa_jpeg_info {
    unsigned width;
    unsigned height;
    int components;
    int color_space;      /* PA_JPEG_CS_* */
    int subsampling;      /* PA_JPEG_SAMP_* */
    int progressive;      /* SOF2 / SOF10 */
    int multi_scan;       /* jpeg_has_multiple_scans: libjpeg buffers the whole image's coefficients */
    int saw_adobe_marker; /* an APP14 "Adobe" segment: its CMYK is stored inverted */
    int adobe_transform;
} pa_jpeg_info;

/* The output pass pa_jpeg_prepare set up (after jpeg_calc_output_dimensions). */
typedef struct pa_jpeg_output {
    unsigned width;
    unsigned height;
    int components; /* bytes per pixel in the rows pa_jpeg_read_rows writes */
    /* Bytes libjpeg will hold while decoding (coefficient buffer, row buffers), an estimate. */
    size_t working_memory;
    /* 1 when the DC-only early stop is armed (progressive, every needed IDCT is 1x1 or the
       coefficients it reads come early); the stop itself happens in pa_jpeg_start. */
    int dc_only;
} pa_jpeg_output;

/* A decoder over `length` bytes at `data` (not copied). `strict` turns every warning into an
   error. NULL when memory runs out. */
pa_jpeg_decoder *pa_jpeg_create(const unsigned char *data, size_t length, int strict);
void pa_jpeg_destroy(pa_jpeg_decoder *decoder);

/* jpeg_read_header, then the ICC profile (jpeg_read_icc_profile; a broken one is a warning
   even in strict mode). */
int pa_jpeg_read_header(pa_jpeg_decoder *decoder, pa_jpeg_info *info);
/* The ICC profile read with the header, or NULL; owned by the decoder. */
const unsigned char *pa_jpeg_icc_profile(const pa_jpeg_decoder *decoder, size_t *length);

/* Scale (scale_num / scale_denom; libjpeg-turbo uses the nearest M/8 not below it), output
   format (PA_JPEG_OUT_*), accurate integer IDCT, and sizes. `dc_only`: a progressive file may
   stop reading once the coefficients the output uses are final (see pa_jpeg_start). */
int pa_jpeg_prepare(pa_jpeg_decoder *decoder, unsigned scale_num, unsigned scale_denom, int out_format,
                    int dc_only, pa_jpeg_output *output);
/* jpeg_start_decompress (a multi-scan file is read whole here, or up to the early stop). For
   PA_JPEG_OUT_PLANES at 3/8, 5/8, 6/8 and 7/8, 4:2:0 chroma is decoded at its own scale (the
   luma's NxN IDCT, each sample filling the 2x2 square of libjpeg's 2Nx2N cell; see shim.c). At
   those scales, any output, libjpeg's plain-C 3x3, 5x5, 6x6 and 7x7 IDCTs give way to SIMD ones
   with the same output byte for byte (scaled_idct.c). */
int pa_jpeg_start(pa_jpeg_decoder *decoder);
/* Before pa_jpeg_start: 0 decodes the Huffman data with libjpeg's own decoder throughout (as
   libjpeg is), for tests that compare; 1, the default, with huffman.c's where it takes the file. */
void pa_jpeg_set_own_huffman(pa_jpeg_decoder *decoder, int enabled);
/* After pa_jpeg_start: 0 when libjpeg decodes the Huffman data (not taken, or turned off), 1 while
   the own decoder does (to the end, once every row is read), 2 once it handed over to libjpeg. */
int pa_jpeg_own_huffman(const pa_jpeg_decoder *decoder);
/* Before pa_jpeg_prepare: 0 keeps libjpeg's own IDCTs throughout (no SIMD 3x3-7x7 from
   scaled_idct.c, no 4:2:0 chroma at its own scale: planes then come as libjpeg upscales them,
   pa_jpeg_plane.own_scale 0); 1, the default, swaps them in where they apply. Together with
   pa_jpeg_set_own_huffman(decoder, 0) the decode is libjpeg-turbo's alone
   (PUSHATTACH_JPEG_DECODER=libjpeg, JPEGCodec.ownDecoding). */
void pa_jpeg_set_own_idct(pa_jpeg_decoder *decoder, int enabled);
/* Reads up to `count` rows, `stride` bytes apart, into `rows`; `*rows_read` says how many
   (fewer only at the end of the image). */
int pa_jpeg_read_rows(pa_jpeg_decoder *decoder, unsigned char *rows, size_t stride, unsigned count,
                      unsigned *rows_read);
/* PA_JPEG_OUT_PLANES: the geometry of `component` (0 ..< components). */
int pa_jpeg_plane_geometry(const pa_jpeg_decoder *decoder, int component, pa_jpeg_plane *plane);
/* PA_JPEG_OUT_PLANES: one iMCU row of every component (jpeg_read_raw_data). `rows` holds each
   component's rows_per_group row pointers, component after component, each padded_width bytes
   writable; rows past a plane's end are not written. `*lines_read` is the luma rows the group
   covers (output_scanline moves by as many; 0 once every row is out). */
int pa_jpeg_read_planes(pa_jpeg_decoder *decoder, unsigned char **rows, unsigned *lines_read);
/* jpeg_finish_decompress: reads to the end-of-image marker (its warnings count), or, after an
   early stop, abandons the rest. */
int pa_jpeg_finish(pa_jpeg_decoder *decoder);
/* 1 when pa_jpeg_start stopped before the end of the data (the DC-only path). */
int pa_jpeg_stopped_early(const pa_jpeg_decoder *decoder);
/* After an early stop: the offset of the first byte not read (just after the header of the
   first scan left unread). */
size_t pa_jpeg_stop_offset(const pa_jpeg_decoder *decoder);
/* Rows handed out so far (output_scanline). */
unsigned pa_jpeg_output_scanline(const pa_jpeg_decoder *decoder);

/* For tests: after pa_jpeg_start, runs the SIMD IDCT that replaced libjpeg's for `component`
   (3x3, 5x5, 6x6 or 7x7, by the scale) and libjpeg's own on one block of 64 `coefficients`, both
   dequantised by `quant` (64 values, natural order). Each writes its NxN samples into its 8x8
   buffer, rows 8 bytes apart; the rest is left as it was. Returns N, or 0 when the component's
   IDCT was not replaced. */
int pa_jpeg_compare_idct(pa_jpeg_decoder *decoder, int component, const short *coefficients, const short *quant,
                         unsigned char *simd, unsigned char *libjpeg);

/* For tests: the symbol of the `length`-bit `code` in the Huffman table a DHT segment with
   counts `bits` (bits[1] ... bits[16]) and `values` gives, read as huffman.c reads codes longer
   than its lookup, after `skew` is added to that length's offset into the symbols (as a damaged
   table in memory would have it; 0 for the table as built). -1 for a code or an index the table
   has no symbol for, or a table huffman.c does not build. */
int pa_huff_canonical_symbol_for_test(const unsigned char bits[17], const unsigned char *values, int code, int length,
                                      int skew);

/* The message of the last failed call ("" when none). */
const char *pa_jpeg_error_message(const pa_jpeg_decoder *decoder);
/* 1 when the last failure is a variant libjpeg does not decode (a precision, process, colour
   conversion or DNL it lacks), by libjpeg's message code; 0 for damage and the shim's own. */
int pa_jpeg_error_is_unsupported(const pa_jpeg_decoder *decoder);
/* 1 when the warning at `index` (of pa_jpeg_warning_messages) leaves the pixels as encoded. */
int pa_jpeg_warning_is_metadata(const pa_jpeg_decoder *decoder, unsigned index);
/* Every warning libjpeg emitted (msg_level -1), including repeats. */
unsigned long pa_jpeg_warning_count(const pa_jpeg_decoder *decoder);
/* Warning texts kept, the first of each kind, in order (at most PA_JPEG_MAX_WARNINGS). */
unsigned pa_jpeg_warning_messages(const pa_jpeg_decoder *decoder);
const char *pa_jpeg_warning_message(const pa_jpeg_decoder *decoder, unsigned index);

#endif
