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
    /* The row before (zeros before the first) and the one being unfiltered. */
    uint8_t *prior, *current;
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
    return sizeof(struct pa_png_fast) + capacity + 2 * row;
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
    if (f->buffer == NULL || f->prior == NULL || f->current == NULL) {
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

static inline uint8_t pa_paeth(int a, int b, int c) {
    int pa = b - c, pb = a - c;
    int pc = pa + pb;
    pa = pa < 0 ? -pa : pa;
    pb = pb < 0 ? -pb : pb;
    pc = pc < 0 ? -pc : pc;
    return (uint8_t)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
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
            for (; i < n; i++) row[i] = (uint8_t)(row[i] + pa_paeth(row[i - BPP], prior[i], prior[i - BPP])); \
            break;                                                                                     \
        default: break;                                                                                \
        }                                                                                              \
    }
PA_PNG_UNFILTER(1)
PA_PNG_UNFILTER(2)
PA_PNG_UNFILTER(3)
PA_PNG_UNFILTER(4)

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
    case 3: pa_png_unfilter_3(type, f->current, f->prior, n); break;
    default: pa_png_unfilter_4(type, f->current, f->prior, n); break;
    }
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
    return 1;
}

uint32_t pa_png_fast_read_rows(pa_png_fast *f, uint8_t *buffer, size_t stride, uint32_t count) {
    uint32_t done = 0;
    while (!f->failed && done < count && f->rows_done < f->height) {
        if (!pa_png_fast_row(f, buffer + (size_t)done * stride)) {
            f->failed = 1;
            break;
        }
        done++;
        f->rows_done++;
    }
    return done;
}

int pa_png_fast_finished_cleanly(pa_png_fast *f) {
    if (f->failed || f->rows_done != f->height || f->start != f->end) return 0;
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
