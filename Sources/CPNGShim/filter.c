/*
 * PNG's row filters for the writer (PNGCodec.encode): see include/CPNGShim.h, pa_png_filter_rows.
 * Filtering reads the pixels as they are (no row depends on another's filtered bytes), so every
 * loop here vectorises; on x86-64 each function is compiled twice (target_clones), for AVX2 and
 * the baseline, and the loader picks one by the CPU.
 */
#include "CPNGShim.h"
#include "paeth.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__clang__)
#define PA_PNG_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PA_PNG_CLONES
#endif

/* Filter types 1-4 of `row` against `prior` into out[0..3] (n bytes each). */
PA_PNG_CLONES
static void pa_png_filter_all(const uint8_t *row, const uint8_t *prior, size_t n, int bpp, uint8_t *sub,
                              uint8_t *up, uint8_t *avg, uint8_t *paeth) {
    size_t first = (size_t)bpp < n ? (size_t)bpp : n;
    for (size_t i = 0; i < first; i++) {
        sub[i] = row[i];
        up[i] = (uint8_t)(row[i] - prior[i]);
        avg[i] = (uint8_t)(row[i] - (prior[i] >> 1));
        paeth[i] = (uint8_t)(row[i] - prior[i]);
    }
    for (size_t i = first; i < n; i++) {
        sub[i] = (uint8_t)(row[i] - row[i - bpp]);
        up[i] = (uint8_t)(row[i] - prior[i]);
        avg[i] = (uint8_t)(row[i] - (uint8_t)((row[i - bpp] + prior[i]) >> 1));
        paeth[i] = (uint8_t)(row[i] - pa_png_paeth(row[i - bpp], prior[i], prior[i - bpp]));
    }
}

/* The sum of the bytes' magnitudes read as signed (libpng's "minimum sum of absolute
   differences" measure). */
PA_PNG_CLONES
static unsigned long pa_png_magnitude(const uint8_t *bytes, size_t n) {
    unsigned long sum = 0;
    for (size_t i = 0; i < n; i++) {
        int v = (int8_t)bytes[i];
        sum += (unsigned long)(v < 0 ? -v : v);
    }
    return sum;
}

PA_PNG_CLONES
static void pa_png_filter_up(const uint8_t *row, const uint8_t *prior, size_t n, uint8_t *out) {
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(row[i] - prior[i]);
}

int pa_png_filter_rows(const uint8_t *pixels, size_t stride, size_t row_bytes, uint32_t height, int bpp,
                       int adaptive, uint8_t *out) {
    uint8_t *zero = calloc(1, row_bytes > 0 ? row_bytes : 1);
    uint8_t *scratch = adaptive ? malloc(4 * (row_bytes > 0 ? row_bytes : 1)) : NULL;
    if (zero == NULL || (adaptive && scratch == NULL)) {
        free(zero);
        free(scratch);
        return -1;
    }
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        const uint8_t *prior = y == 0 ? zero : row - stride;
        uint8_t *target = out + (size_t)y * (row_bytes + 1);
        if (!adaptive) {
            target[0] = y == 0 ? 0 : 2;
            if (y == 0) memcpy(target + 1, row, row_bytes);
            else pa_png_filter_up(row, prior, row_bytes, target + 1);
            continue;
        }
        uint8_t *filtered[4] = {scratch, scratch + row_bytes, scratch + 2 * row_bytes, scratch + 3 * row_bytes};
        pa_png_filter_all(row, prior, row_bytes, bpp, filtered[0], filtered[1], filtered[2], filtered[3]);
        int best = 0;
        unsigned long least = pa_png_magnitude(row, row_bytes);
        for (int type = 1; type <= 4; type++) {
            unsigned long sum = pa_png_magnitude(filtered[type - 1], row_bytes);
            if (sum < least) {
                least = sum;
                best = type;
            }
        }
        target[0] = (uint8_t)best;
        memcpy(target + 1, best == 0 ? row : filtered[best - 1], row_bytes);
    }
    free(zero);
    free(scratch);
    return 0;
}
