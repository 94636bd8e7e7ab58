/* PNG's Paeth predictor of a byte from its left (a), upper (b) and upper-left (c) neighbours: the
   one nearest a + b - c, a before b before c on ties. Shared by the reader (fast.c) and the row
   filters of the writer (filter.c). Internal to CPNGShim. */
#ifndef PA_PNG_PAETH_H
#define PA_PNG_PAETH_H

#include <stdint.h>

static inline uint8_t pa_png_paeth(int a, int b, int c) {
    int pa = b - c, pb = a - c;
    int pc = pa + pb;
    pa = pa < 0 ? -pa : pa;
    pb = pb < 0 ? -pb : pb;
    pc = pc < 0 ? -pc : pc;
    return (uint8_t)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

#endif
