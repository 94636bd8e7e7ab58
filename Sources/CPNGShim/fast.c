/*
 * The rows of a common PNG (8-bit grey, RGB, grey+alpha or RGBA, not interlaced, no tRNS, no
 * gamma to convert) without libpng: the IDAT chunks' zlib stream inflated by ISA-L's inflate
 * (isal_inflate, streaming), the rows unfiltered here, grey+alpha spread to RGBA as libpng's
 * png_set_gray_to_rgb does. Such a file's rows are then the same bytes libpng gives, by
 * definition of the format: nothing is converted.
 *
 * Why: zlib's inflate and libpng's unfiltering were the whole cost of a PNG decode (75 MP/s on
 * the corpus photos written as PNG, where libvips, with libspng over zlib-ng, reads 108-191).
 * ISA-L's inflate is about three times zlib's on those files (Benchmarks/RESULTS.md); libspng,
 * the other candidate, inflates with zlib.
 *
 * Exact or nothing: at anything it does not take (a damaged or short zlib stream, a filter type
 * over 4, data after the stream's end, a wrong Adler-32, the IDAT chunks ending early) it stops,
 * and shim.c replays the file from its first row with libpng, which then gives its own rows,
 * warnings and errors for the whole file. Chunk CRCs are the Swift chunk walk's (PNGChunks),
 * which refuses a file with a bad one before any row is read.
 *
 * Memory: ISA-L's state (about 90 KB: its own 64 KB window buffer and tables), a buffer of
 * inflated data of at least 128 KB and two rows, and two rows for unfiltering.
 */
#include "fast.h"
#include "paeth.h"

#include <stdlib.h>
#include <string.h>

#include <isa-l/igzip_lib.h>

/* Inflated data is taken from ISA-L this much at a time (and at least two rows): much less and
   isal_inflate works through its own window buffer, a copy more per byte. */
#define PA_PNG_FAST_CHUNK (128 * 1024)

struct pa_png_fast {
    struct inflate_state inflate;
    const uint8_t *data;
    size_t length;
    /* The next chunk's length field, once the current IDAT chunk's data is all with ISA-L. */
    size_t next_chunk;
    uint32_t width, height, rows_done;
    int channels;     /* bytes a pixel in the file */
    int out_channels; /* bytes a pixel handed out */
    size_t row_bytes; /* width * channels */
    /* Inflated data not yet unfiltered: buffer[start ..< end], at most `capacity` bytes. */
    uint8_t *buffer;
    size_t capacity, start, end;
    /* The row before (zeros before the first) and the one being unfiltered; the second of a pair
       of Paeth rows unfiltered together, until it is handed out (`has_pending`). */
    uint8_t *prior, *current, *pending;
    int has_pending;
    int failed;
};

static uint32_t pa_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static int pa_png_fast_next_idat(pa_png_fast *f);

/* The zlib header, read here as zlib reads it for libpng (which takes the window from it):
   deflate, a window of at most 32 KB, the check bits right, no preset dictionary. ISA-L then
   inflates the raw deflate data with that window (a distance past it is an error, as in zlib)
   and checks the Adler-32 that follows it. 0 for a header this does not take, or one split
   across IDAT chunks. */
static int pa_png_fast_start(pa_png_fast *f) {
    if (!pa_png_fast_next_idat(f) || f->inflate.avail_in < 2) return 0;
    unsigned cmf = f->inflate.next_in[0], flg = f->inflate.next_in[1];
    if ((cmf & 15) != 8 || (cmf >> 4) > 7 || (cmf * 256 + flg) % 31 != 0 || (flg & 32) != 0) return 0;
    f->inflate.crc_flag = ISAL_ZLIB_NO_HDR_VER;
    f->inflate.hist_bits = (cmf >> 4) + 8;
    f->inflate.next_in += 2;
    f->inflate.avail_in -= 2;
    return 1;
}

size_t pa_png_fast_memory(uint32_t width, int channels) {
    size_t row = (size_t)width * (size_t)channels + 1;
    size_t capacity = 2 * row > PA_PNG_FAST_CHUNK ? 2 * row : PA_PNG_FAST_CHUNK;
    return sizeof(struct pa_png_fast) + capacity + 3 * row;
}

pa_png_fast *pa_png_fast_create(const uint8_t *data, size_t length, size_t idat, uint32_t width, uint32_t height,
                                int colour_type, int out_channels) {
    int channels;
    switch (colour_type) {
    case 0: channels = 1; break;
    case 2: channels = 3; break;
    case 4: channels = 2; break;
    case 6: channels = 4; break;
    default: return NULL;
    }
    int expected = colour_type == 4 ? 4 : channels;
    if (out_channels != expected || width == 0 || height == 0 || idat > length || length - idat < 8 ||
        memcmp(data + idat + 4, "IDAT", 4) != 0)
        return NULL;
    pa_png_fast *f = calloc(1, sizeof *f);
    if (f == NULL) return NULL;
    f->data = data;
    f->length = length;
    f->width = width;
    f->height = height;
    f->channels = channels;
    f->out_channels = out_channels;
    f->row_bytes = (size_t)width * (size_t)channels;
    size_t row = f->row_bytes + 1;
    f->capacity = 2 * row > PA_PNG_FAST_CHUNK ? 2 * row : PA_PNG_FAST_CHUNK;
    f->buffer = malloc(f->capacity);
    f->prior = calloc(1, row);
    f->current = malloc(row);
    f->pending = malloc(row);
    if (f->buffer == NULL || f->prior == NULL || f->current == NULL || f->pending == NULL) {
        pa_png_fast_destroy(f);
        return NULL;
    }
    isal_inflate_init(&f->inflate);
    f->next_chunk = idat;
    if (!pa_png_fast_start(f)) {
        pa_png_fast_destroy(f);
        return NULL;
    }
    return f;
}

void pa_png_fast_destroy(pa_png_fast *f) {
    if (f == NULL) return;
    free(f->buffer);
    free(f->prior);
    free(f->current);
    free(f->pending);
    free(f);
}

/* Hands ISA-L the next IDAT chunk's data: 0 when the next chunk is not an IDAT (or the file ends). */
static int pa_png_fast_next_idat(pa_png_fast *f) {
    for (;;) {
        size_t at = f->next_chunk;
        if (at > f->length || f->length - at < 12) return 0;
        uint32_t size = pa_be32(f->data + at);
        if (memcmp(f->data + at + 4, "IDAT", 4) != 0 || size > f->length - at - 12) return 0;
        f->next_chunk = at + 12 + size;
        if (size == 0) continue;
        f->inflate.next_in = (uint8_t *)(uintptr_t)(f->data + at + 8);
        f->inflate.avail_in = size;
        return 1;
    }
}

/* At least `need` inflated bytes in buffer[start ..< end]: 0 when the stream cannot give them. */
static int pa_png_fast_fill(pa_png_fast *f, size_t need) {
    if (f->end - f->start >= need) return 1;
    if (f->start > 0) {
        memmove(f->buffer, f->buffer + f->start, f->end - f->start);
        f->end -= f->start;
        f->start = 0;
    }
    while (f->end < need) {
        if (f->inflate.block_state == ISAL_BLOCK_FINISH) return 0;
        if (f->inflate.avail_in == 0 && !pa_png_fast_next_idat(f)) return 0;
        f->inflate.next_out = f->buffer + f->end;
        f->inflate.avail_out = (uint32_t)(f->capacity - f->end);
        uint32_t before_in = f->inflate.avail_in, before_out = f->inflate.avail_out;
        if (isal_inflate(&f->inflate) != ISAL_DECOMP_OK) return 0;
        f->end = f->capacity - f->inflate.avail_out;
        /* No progress with input and room left: a stream ISA-L cannot go on with. */
        if (f->inflate.avail_in == before_in && f->inflate.avail_out == before_out &&
            f->inflate.block_state != ISAL_BLOCK_FINISH && f->inflate.avail_in != 0)
            return 0;
    }
    return 1;
}

/* PNG's five filters, undone on `row` (n bytes) with `prior` the row above, `bpp` bytes a pixel.
   Written per bpp so the compiler keeps each channel's chain in registers. */
#define PA_PNG_UNFILTER(BPP)                                                                             \
    static void pa_png_unfilter_##BPP(int type, uint8_t *row, const uint8_t *prior, size_t n) {        \
        size_t i;                                                                                      \
        switch (type) {                                                                                \
        case 1:                                                                                        \
            for (i = BPP; i < n; i++) row[i] = (uint8_t)(row[i] + row[i - BPP]);                       \
            break;                                                                                     \
        case 2:                                                                                        \
            for (i = 0; i < n; i++) row[i] = (uint8_t)(row[i] + prior[i]);                             \
            break;                                                                                     \
        case 3:                                                                                        \
            for (i = 0; i < BPP && i < n; i++) row[i] = (uint8_t)(row[i] + (prior[i] >> 1));           \
            for (; i < n; i++) row[i] = (uint8_t)(row[i] + ((row[i - BPP] + prior[i]) >> 1));         \
            break;                                                                                     \
        case 4:                                                                                        \
            for (i = 0; i < BPP && i < n; i++) row[i] = (uint8_t)(row[i] + prior[i]);                  \
            for (; i < n; i++) row[i] = (uint8_t)(row[i] + pa_png_paeth(row[i - BPP], prior[i], prior[i - BPP])); \
            break;                                                                                     \
        default: break;                                                                                \
        }                                                                                              \
    }
PA_PNG_UNFILTER(1)
PA_PNG_UNFILTER(2)
PA_PNG_UNFILTER(3)
PA_PNG_UNFILTER(4)

#if defined(__SSE2__)
/* Sub, Avg and Paeth of 3- and 4-byte pixels with one pixel's channels in the lanes of a vector
   (as libpng's filter_sse2_intrinsics.c): each pixel still needs the one before it unfiltered,
   but its channels go together. The same arithmetic as the scalar code: Paeth's predictor is the
   neighbour with the least of pa, pb, pc, in that order on ties; Avg's is (a + b) >> 1 in 16 bits. */
#include <emmintrin.h>

#define PA_INLINE static inline __attribute__((always_inline))

/* A pixel of `bpp` (3 or 4, a constant where these are inlined) bytes as 16-bit lanes. */
PA_INLINE __m128i pa_load_pixel(const uint8_t *p, int bpp) {
    uint32_t v = 0;
    memcpy(&v, p, (size_t)bpp);
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)v), _mm_setzero_si128());
}

PA_INLINE void pa_store_pixel(uint8_t *p, __m128i v, int bpp) {
    uint32_t out = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(v, v));
    memcpy(p, &out, (size_t)bpp);
}

static inline __m128i pa_abs16(__m128i x) { return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x)); }

static inline __m128i pa_select(__m128i mask, __m128i yes, __m128i no) {
    return _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no));
}

static inline __m128i pa_paeth_pixel(__m128i a, __m128i b, __m128i c) {
    __m128i pa = _mm_sub_epi16(b, c), pb = _mm_sub_epi16(a, c);
    __m128i pc = pa_abs16(_mm_add_epi16(pa, pb));
    pa = pa_abs16(pa);
    pb = pa_abs16(pb);
    __m128i least = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));
    return pa_select(_mm_cmpeq_epi16(pa, least), a, pa_select(_mm_cmpeq_epi16(pb, least), b, c));
}

/* Filter types 1, 3 and 4 of 3- or 4-byte pixels; 0 when `type` is another (the scalar code's). */
PA_INLINE int pa_png_unfilter_pixels(int type, uint8_t *row, const uint8_t *prior, size_t n, int bpp) {
    if (type != 1 && type != 3 && type != 4) return 0;
    const __m128i mask = _mm_set1_epi16(0xFF);
    __m128i a = _mm_setzero_si128(), c = _mm_setzero_si128();
    for (size_t i = 0; i + (size_t)bpp <= n; i += (size_t)bpp) {
        __m128i x = pa_load_pixel(row + i, bpp), predicted;
        if (type == 1) {
            predicted = a;
        } else {
            __m128i b = pa_load_pixel(prior + i, bpp);
            if (type == 3) {
                predicted = _mm_srli_epi16(_mm_add_epi16(a, b), 1);
            } else {
                predicted = pa_paeth_pixel(a, b, c);
            }
            c = b;
        }
        a = _mm_and_si128(_mm_add_epi16(x, predicted), mask);
        pa_store_pixel(row + i, a, bpp);
    }
    return 1;
}

/* Two Paeth rows at once, `second` right below `first` (whose prior is `prior`): pixel x of the
   first row and pixel x - 1 of the second in each step, which needs only pixels of the first
   row already decoded. Each pixel waits for the one before it in its row, so one row at a time
   leaves the CPU idle most of each step; two chains side by side fill it (1.45x on a 12 MP
   photo's rows, clang -O2). */
PA_INLINE int pa_png_paeth_two_rows(uint8_t *first, uint8_t *second, const uint8_t *prior, size_t n, int bpp) {
    const __m128i mask = _mm_set1_epi16(0xFF);
    size_t step = (size_t)bpp;
    if (n < step) return 0;
    __m128i a1 = _mm_setzero_si128(), c1 = a1, a2 = a1, c2 = a1;
    for (size_t i = 0; i < n; i += step) {
        __m128i b1 = pa_load_pixel(prior + i, bpp);
        __m128i new1 = _mm_and_si128(_mm_add_epi16(pa_load_pixel(first + i, bpp), pa_paeth_pixel(a1, b1, c1)), mask);
        pa_store_pixel(first + i, new1, bpp);
        c1 = b1;
        if (i > 0) {
            /* Pixel i - 1 of the second row: above it is the first row's pixel i - 1 (a1 until
               now), above left the one before (c2 holds it). */
            __m128i x2 = pa_load_pixel(second + i - step, bpp);
            __m128i new2 = _mm_and_si128(_mm_add_epi16(x2, pa_paeth_pixel(a2, a1, c2)), mask);
            pa_store_pixel(second + i - step, new2, bpp);
            a2 = new2;
            c2 = a1;
        } else {
            c2 = _mm_setzero_si128();
        }
        a1 = new1;
    }
    __m128i x2 = pa_load_pixel(second + n - step, bpp);
    pa_store_pixel(second + n - step, _mm_and_si128(_mm_add_epi16(x2, pa_paeth_pixel(a2, a1, c2)), mask), bpp);
    return 1;
}
#define PA_PNG_HAS_PAIRS 1
#else
static int pa_png_unfilter_pixels(int type, uint8_t *row, const uint8_t *prior, size_t n, int bpp) {
    (void)type, (void)row, (void)prior, (void)n, (void)bpp;
    return 0;
}
#endif

/* Hands out the unfiltered row in `current` into `out` (grey+alpha spread to RGBA), and makes it
   the prior row. */
static void pa_png_fast_hand_out(pa_png_fast *f, uint8_t *out) {
    size_t n = f->row_bytes;
    if (f->out_channels == f->channels) {
        memcpy(out, f->current, n);
    } else {
        /* Grey+alpha to RGBA: the grey in each of R, G and B. */
        const uint8_t *in = f->current;
        for (uint32_t x = 0; x < f->width; x++, in += 2, out += 4) {
            out[0] = out[1] = out[2] = in[0];
            out[3] = in[1];
        }
    }
    uint8_t *swap = f->prior;
    f->prior = f->current;
    f->current = swap;
}

/* Two rows, into `out` and `pending` (handed out by the next step), when both are Paeth rows of
   3- or 4-byte pixels (most of a photo's); 0, with nothing consumed, otherwise. */
static int pa_png_fast_two_rows(pa_png_fast *f, uint8_t *out) {
    uint8_t *next = f->pending;
#ifdef PA_PNG_HAS_PAIRS
    size_t n = f->row_bytes;
    if ((f->channels != 3 && f->channels != 4) || f->channels != f->out_channels || !pa_png_fast_fill(f, 2 * (n + 1)))
        return 0;
    const uint8_t *filtered = f->buffer + f->start;
    if (filtered[0] != 4 || filtered[n + 1] != 4) return 0;
    memcpy(out, filtered + 1, n);
    memcpy(next, filtered + n + 2, n);
    if (!(f->channels == 3 ? pa_png_paeth_two_rows(out, next, f->prior, n, 3)
                           : pa_png_paeth_two_rows(out, next, f->prior, n, 4)))
        return 0;
    f->start += 2 * (n + 1);
    memcpy(f->prior, next, n);
    f->has_pending = 1;
    return 1;
#else
    (void)f, (void)out;
    return 0;
#endif
}

/* One row: unfiltered into `current` and handed out into `out`. 0 at a filter type over 4 or a
   stream that ends early. */
static int pa_png_fast_row(pa_png_fast *f, uint8_t *out) {
    size_t n = f->row_bytes;
    if (!pa_png_fast_fill(f, n + 1)) return 0;
    const uint8_t *filtered = f->buffer + f->start;
    int type = filtered[0];
    if (type > 4) return 0;
    memcpy(f->current, filtered + 1, n);
    f->start += n + 1;
    switch (f->channels) {
    case 1: pa_png_unfilter_1(type, f->current, f->prior, n); break;
    case 2: pa_png_unfilter_2(type, f->current, f->prior, n); break;
    case 3:
        if (!pa_png_unfilter_pixels(type, f->current, f->prior, n, 3)) pa_png_unfilter_3(type, f->current, f->prior, n);
        break;
    default:
        if (!pa_png_unfilter_pixels(type, f->current, f->prior, n, 4)) pa_png_unfilter_4(type, f->current, f->prior, n);
        break;
    }
    pa_png_fast_hand_out(f, out);
    return 1;
}

uint32_t pa_png_fast_read_rows(pa_png_fast *f, uint8_t *buffer, size_t stride, uint32_t count) {
    uint32_t done = 0;
    while (!f->failed && done < count && f->rows_done < f->height) {
        uint8_t *out = buffer + (size_t)done * stride;
        if (f->has_pending) {
            memcpy(out, f->pending, f->row_bytes);
            f->has_pending = 0;
        } else if (f->height - f->rows_done < 2 || !pa_png_fast_two_rows(f, out)) {
            if (!pa_png_fast_row(f, out)) {
                f->failed = 1;
                break;
            }
        }
        done++;
        f->rows_done++;
    }
    return done;
}

int pa_png_fast_finished_cleanly(pa_png_fast *f) {
    if (f->failed || f->rows_done != f->height || f->has_pending || f->start != f->end) return 0;
    /* The stream's end (and its checksum) may lie in data not yet inflated: ask for one more
       byte, which must not come. */
    if (f->inflate.block_state != ISAL_BLOCK_FINISH) {
        if (pa_png_fast_fill(f, 1)) return 0;
        if (f->inflate.block_state != ISAL_BLOCK_FINISH) return 0;
    }
    /* Nothing after the stream in this chunk (nor in ISA-L's bit buffer, which reads ahead) or in
       a later IDAT (libpng: "Extra compressed data"). */
    if (f->inflate.avail_in != 0 || f->inflate.read_in_length > 0) return 0;
    size_t at = f->next_chunk;
    while (at <= f->length && f->length - at >= 12 && memcmp(f->data + at + 4, "IDAT", 4) == 0) {
        uint32_t size = pa_be32(f->data + at);
        if (size != 0) return 0;
        at += 12;
    }
    return 1;
}
