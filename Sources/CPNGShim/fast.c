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
 * inflated data of at least 128 KB and six rows, two rows for unfiltering one at a time and six
 * for unfiltering them together.
 */
#include "fast.h"
#include "paeth.h"

#include <stdlib.h>
#include <string.h>

#include <isa-l/igzip_lib.h>

/* Inflated data is taken from ISA-L about this much at a time: much less and isal_inflate works
   through its own window buffer, a copy more per byte. */
#define PA_PNG_FAST_CHUNK (128 * 1024)
/* Rows of 3- or 4-byte pixels unfiltered together (pa_png_unfilter_group): at most this many. */
#define PA_PNG_GROUP 6

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
    /* The row before (zeros before the first) and the one being unfiltered. */
    uint8_t *prior, *current;
    /* Rows unfiltered together, handed out one by one: group[group_next ..< group_rows]. */
    uint8_t *group;
    uint32_t group_rows, group_next;
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

/* The inflated-data buffer's size for rows of `row` bytes (the filter type byte included): a
   group of rows and two chunks, so the data left over is moved to the front about once every
   two chunks (pa_png_fast_fill). */
static size_t pa_png_fast_capacity(size_t row) { return PA_PNG_GROUP * row + PA_PNG_FAST_CHUNK; }

size_t pa_png_fast_memory(uint32_t width, int channels) {
    size_t row = (size_t)width * (size_t)channels + 1;
    return sizeof(struct pa_png_fast) + pa_png_fast_capacity(row) + (2 + PA_PNG_GROUP) * row;
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
    f->capacity = pa_png_fast_capacity(row);
    f->buffer = malloc(f->capacity);
    f->prior = calloc(1, row);
    f->current = malloc(row);
    f->group = malloc(PA_PNG_GROUP * row);
    if (f->buffer == NULL || f->prior == NULL || f->current == NULL || f->group == NULL) {
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
    free(f->group);
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
    if (f->capacity - f->start < need) {
        memmove(f->buffer, f->buffer + f->start, f->end - f->start);
        f->end -= f->start;
        f->start = 0;
    }
    while (f->end - f->start < need) {
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

#else
static int pa_png_unfilter_pixels(int type, uint8_t *row, const uint8_t *prior, size_t n, int bpp) {
    (void)type, (void)row, (void)prior, (void)n, (void)bpp;
    return 0;
}
#endif

#if defined(__clang__)
/* Two to six rows of 3- or 4-byte pixels unfiltered together, each of filter type None, Sub, Up
   or Paeth (Avg is left to the one-row code). A row's pixel waits for the one before it, so one
   row at a time leaves the CPU idle most of each step; here row k is at pixel s - k in step s (the
   pixels above it and above-left are then done), two rows share a vector of 16-bit lanes (one
   pixel each, its channels in four lanes) and the vectors of up to three row pairs run side by
   side. Sub, Up and None are Paeth with neighbours zeroed: with b = c = 0 Paeth gives a, with
   a = c = 0 it gives b, with all three zero 0. 2.6-2.8x the two-row SSE2 code on photos' rows
   (clang -O2, AVX2), 2.2x without AVX2.
   The first and last pixels of each row, where the rows' steps do not overlap, go through
   pa_png_group_pixel; the steps in between read and write four bytes a pixel, inside the rows. */
typedef int16_t pa_lanes __attribute__((vector_size(16)));
typedef uint8_t pa_lane_bytes __attribute__((vector_size(8)));

#define PA_ALWAYS static inline __attribute__((always_inline))

/* Pixel p of a row of type 0, 1, 2 or 4, `up` the row above (already unfiltered). */
PA_ALWAYS void pa_png_group_pixel(int type, const uint8_t *in, uint8_t *out, const uint8_t *up, size_t p, int bpp) {
    for (int ch = 0; ch < bpp; ch++) {
        size_t i = p * (size_t)bpp + (size_t)ch;
        int a = p > 0 ? out[i - (size_t)bpp] : 0, b = up[i], c = p > 0 ? up[i - (size_t)bpp] : 0;
        int predicted = type == 4 ? pa_png_paeth(a, b, c) : type == 1 ? a : type == 2 ? b : 0;
        out[i] = (uint8_t)(in[i] + predicted);
    }
}

/* Two pixels (four bytes each from p and q) in the low and high four lanes. */
PA_ALWAYS pa_lanes pa_lanes_load(const uint8_t *p, const uint8_t *q) {
    pa_lane_bytes b;
    memcpy(&b, p, 4);
    memcpy((uint8_t *)&b + 4, q, 4);
    return __builtin_convertvector(b, pa_lanes);
}

/* One pixel (four bytes from p) in the low four lanes. */
PA_ALWAYS pa_lanes pa_lanes_load_one(const uint8_t *p) {
    pa_lane_bytes b = {0};
    memcpy(&b, p, 4);
    return __builtin_convertvector(b, pa_lanes);
}

/* Pixel p of `row` (bpp bytes, zeros left of the row) in the low four lanes. */
PA_ALWAYS pa_lanes pa_lanes_pixel(const uint8_t *row, long p, int bpp) {
    pa_lane_bytes b = {0};
    if (p >= 0) memcpy(&b, row + p * bpp, (size_t)bpp);
    return __builtin_convertvector(b, pa_lanes);
}

PA_ALWAYS void pa_lanes_store(uint8_t *p, uint8_t *q, pa_lanes v) {
    pa_lane_bytes b = __builtin_convertvector(v, pa_lane_bytes);
    memcpy(p, &b, 4);
    memcpy(q, (uint8_t *)&b + 4, 4);
}

/* lo's low half, then hi's low half. */
PA_ALWAYS pa_lanes pa_lanes_low(pa_lanes lo, pa_lanes hi) { return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 8, 9, 10, 11); }
/* lo's high half, then hi's low half. */
PA_ALWAYS pa_lanes pa_lanes_middle(pa_lanes lo, pa_lanes hi) { return __builtin_shufflevector(lo, hi, 4, 5, 6, 7, 8, 9, 10, 11); }

PA_ALWAYS pa_lanes pa_lanes_mask(int low, int high) {
    pa_lanes m = {0};
    for (int i = 0; i < 4; i++) {
        m[i] = low ? -1 : 0;
        m[i + 4] = high ? -1 : 0;
    }
    return m;
}

/* The Paeth predictor lane by lane: the neighbour with the least of pa, pb, pc, in that order on
   ties (the scalar pa_png_paeth's choice). */
PA_ALWAYS pa_lanes pa_lanes_paeth(pa_lanes a, pa_lanes b, pa_lanes c) {
    pa_lanes pa = b - c, pb = a - c;
    pa_lanes pc = __builtin_elementwise_abs(pa + pb);
    pa = __builtin_elementwise_abs(pa);
    pb = __builtin_elementwise_abs(pb);
    pa_lanes least = __builtin_elementwise_min(pa, __builtin_elementwise_min(pb, pc));
    pa_lanes is_a = pa == least, is_b = pb == least;
    pa_lanes b_or_c = (is_b & b) | (~is_b & c);
    return (is_a & a) | (~is_a & b_or_c);
}

/* 2 * pairs rows: in[k] filtered (types[k]), out[k] written, prior the row above in[0]. */
PA_ALWAYS void pa_png_unfilter_group_body(const uint8_t *const in[], uint8_t *const out[], const uint8_t *prior,
                                          const int types[], size_t n, int bpp, int pairs) {
    const int rows = 2 * pairs;
    const long pixels = (long)(n / (size_t)bpp);
    if (pixels < rows + 2) {
        for (int k = 0; k < rows; k++)
            for (long p = 0; p < pixels; p++)
                pa_png_group_pixel(types[k], in[k], out[k], k > 0 ? out[k - 1] : prior, (size_t)p, bpp);
        return;
    }
    /* Before step `first`, row k has its first first - k pixels. */
    const long first = rows - 1;
    for (int k = 0; k < rows - 1; k++)
        for (long p = 0; p < first - k; p++)
            pa_png_group_pixel(types[k], in[k], out[k], k > 0 ? out[k - 1] : prior, (size_t)p, bpp);
    /* Per pair h (rows 2h and 2h + 1): which neighbours the rows' types keep, the pixels the last
       step made (each row's left neighbour in the next) and the last step's upper neighbours
       (the next step's upper-left). */
    pa_lanes keep_a[PA_PNG_GROUP / 2], keep_b[PA_PNG_GROUP / 2], keep_c[PA_PNG_GROUP / 2];
    pa_lanes made[PA_PNG_GROUP / 2], above[PA_PNG_GROUP / 2];
    const uint8_t *from[PA_PNG_GROUP];
    uint8_t *to[PA_PNG_GROUP];
    for (int k = 0; k < rows; k++) {
        from[k] = in[k] - k * bpp;
        to[k] = out[k] - k * bpp;
    }
    for (int h = 0; h < pairs; h++) {
        int t0 = types[2 * h], t1 = types[2 * h + 1];
        keep_a[h] = pa_lanes_mask(t0 == 1 || t0 == 4, t1 == 1 || t1 == 4);
        keep_b[h] = pa_lanes_mask(t0 == 2 || t0 == 4, t1 == 2 || t1 == 4);
        keep_c[h] = pa_lanes_mask(t0 == 4, t1 == 4);
        long p0 = first - 1 - 2 * h, p1 = p0 - 1;
        made[h] = pa_lanes_low(pa_lanes_pixel(out[2 * h], p0, bpp), pa_lanes_pixel(out[2 * h + 1], p1, bpp));
        above[h] = pa_lanes_low(pa_lanes_pixel(h > 0 ? out[2 * h - 1] : prior, p0, bpp),
                                pa_lanes_pixel(out[2 * h], p1, bpp));
    }
    const pa_lanes byte = {255, 255, 255, 255, 255, 255, 255, 255};
    const size_t step = (size_t)bpp;
    /* Steps while row 0 is short of its last pixel: every access stays inside its row. */
    for (size_t i = (size_t)first * step; i + step < n; i += step) {
        pa_lanes up[PA_PNG_GROUP / 2];
        up[0] = pa_lanes_low(pa_lanes_load_one(prior + i), made[0]);
        for (int h = 1; h < pairs; h++) up[h] = pa_lanes_middle(made[h - 1], made[h]);
        for (int h = 0; h < pairs; h++) {
            pa_lanes up_left = above[h];
            above[h] = up[h];
            pa_lanes x = pa_lanes_load(from[2 * h] + i, from[2 * h + 1] + i);
            made[h] = (x + pa_lanes_paeth(made[h] & keep_a[h], up[h] & keep_b[h], up_left & keep_c[h])) & byte;
            pa_lanes_store(to[2 * h] + i, to[2 * h + 1] + i, made[h]);
        }
    }
    for (int k = 0; k < rows; k++)
        for (long p = pixels - 1 - k; p < pixels; p++)
            pa_png_group_pixel(types[k], in[k], out[k], k > 0 ? out[k - 1] : prior, (size_t)p, bpp);
}

#if defined(__x86_64__)
#define PA_PNG_GROUP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PA_PNG_GROUP_CLONES
#endif

PA_PNG_GROUP_CLONES
static void pa_png_unfilter_group(const uint8_t *const in[], uint8_t *const out[], const uint8_t *prior,
                                  const int types[], int rows, size_t n, int bpp) {
    if (bpp == 3) {
        switch (rows) {
        case 2: pa_png_unfilter_group_body(in, out, prior, types, n, 3, 1); break;
        case 4: pa_png_unfilter_group_body(in, out, prior, types, n, 3, 2); break;
        default: pa_png_unfilter_group_body(in, out, prior, types, n, 3, 3); break;
        }
    } else {
        switch (rows) {
        case 2: pa_png_unfilter_group_body(in, out, prior, types, n, 4, 1); break;
        case 4: pa_png_unfilter_group_body(in, out, prior, types, n, 4, 2); break;
        default: pa_png_unfilter_group_body(in, out, prior, types, n, 4, 3); break;
        }
    }
}
#define PA_PNG_HAS_GROUPS 1
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

/* The next two, four or six rows (as many as are left, up to the first of filter type Avg, even)
   unfiltered together into `group`, the first handed out into `out`, when the pixels are 3 or 4
   bytes; 0, with nothing consumed, otherwise. */
static int pa_png_fast_group(pa_png_fast *f, uint8_t *out) {
#ifdef PA_PNG_HAS_GROUPS
    size_t n = f->row_bytes;
    uint32_t left = f->height - f->rows_done;
    int rows = left < PA_PNG_GROUP ? (int)left : PA_PNG_GROUP;
    if ((f->channels != 3 && f->channels != 4) || f->channels != f->out_channels || rows < 2 ||
        !pa_png_fast_fill(f, (size_t)rows * (n + 1)))
        return 0;
    const uint8_t *filtered = f->buffer + f->start;
    int types[PA_PNG_GROUP];
    for (int k = 0; k < rows; k++) {
        types[k] = filtered[(size_t)k * (n + 1)];
        if (types[k] == 3 || types[k] > 4) {
            rows = k;
            break;
        }
    }
    rows &= ~1;
    if (rows < 2) return 0;
    const uint8_t *in[PA_PNG_GROUP];
    uint8_t *unfiltered[PA_PNG_GROUP];
    for (int k = 0; k < rows; k++) {
        in[k] = filtered + (size_t)k * (n + 1) + 1;
        unfiltered[k] = f->group + (size_t)k * n;
    }
    pa_png_unfilter_group(in, unfiltered, f->prior, types, rows, n, f->channels);
    f->start += (size_t)rows * (n + 1);
    memcpy(out, unfiltered[0], n);
    memcpy(f->prior, unfiltered[rows - 1], n);
    f->group_rows = (uint32_t)rows;
    f->group_next = 1;
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
        if (f->group_next < f->group_rows) {
            memcpy(out, f->group + (size_t)f->group_next * f->row_bytes, f->row_bytes);
            f->group_next++;
        } else if (!pa_png_fast_group(f, out)) {
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
    if (f->failed || f->rows_done != f->height || f->group_next < f->group_rows || f->start != f->end) return 0;
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
