/*
 * libjpeg's scaled IDCTs in SIMD: the NxN blocks of a decode at N/8 for N = 3, 5, 6 and 7.
 *
 * Why: libjpeg-turbo has SIMD IDCTs for 1x1, 2x2, 4x4 and 8x8 only; the other scaled ones are
 * plain C with 64-bit products, one column and then one row at a time. A photo fitted in 2048 px
 * is mostly decoded at 5/8 (4032 px wide) or 6/8 (3264 px), and jpeg_idct_5x5 alone was 8.5 %
 * of the whole 500-URL `prepare` (perf, Benchmarks/RESULTS.md), more than our resize.
 *
 * How: the same factorisation as libjpeg's jidctint.c (the same FIX() constants, the same order
 * of additions and shifts), so every sample is libjpeg's, byte for byte; only the lanes differ.
 * Pass 1 runs on all eight columns at once (one vector per coefficient row), the workspace is
 * transposed, pass 2 runs on all rows at once (one vector per workspace column), and the output
 * is transposed back as bytes. Every value is 32 bits where libjpeg's are 64:
 *   - Pass 2 and the output need no range: libjpeg keeps bits 18..27 of each final sum
 *     (RIGHT_SHIFT by 18, then `& RANGE_MASK`, 1023) and pass 2 is additions, multiplications
 *     and left shifts only, whose low 32 bits do not depend on the bits above them. So pass 2
 *     computes in uint32_t, wrapping as it likes, and its bits 18..27 are libjpeg's.
 *   - Pass 1 ends in right shifts, which need the whole value: exact in 32 bits while every
 *     dequantised coefficient is within +-8191 (its largest sum, 7x7's, then stays under 2^30).
 *     A conforming 8-bit JPEG's are within about +-2200 (the DCT of 8-bit samples is within
 *     +-2048, plus half a quantisation step); a block beyond that (a damaged or crafted file)
 *     is handed to libjpeg's own function instead, so the output is libjpeg's for every input.
 *   - libjpeg's range_limit table maps those ten bits, read as a signed number s, to
 *     clamp(s + 128, 0, 255) (jdmaster.c's prepare_range_limit_table); computed here.
 *
 * On x86-64 each function is compiled twice (target_clones), for AVX2 and for the baseline
 * (SSE2), and the loader picks one by the CPU. libjpeg's jidctint.c is under the IJG licence;
 * this is our own code after its published algorithm.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "libjpeg_fence.h"
#include <jpegint.h>

#include "scaled_idct.h"

typedef int32_t pa_i32x8 __attribute__((vector_size(32)));
typedef uint32_t pa_u32x8 __attribute__((vector_size(32)));
typedef int16_t pa_i16x8 __attribute__((vector_size(16)));
typedef uint8_t pa_u8x8 __attribute__((vector_size(8)));
typedef uint8_t pa_u8x16 __attribute__((vector_size(16)));

/* jmorecfg.h's MULTIPLIER, the element type of an ISLOW quantisation table (jdct.h), which it
   defines only for libjpeg's own sources: short when libjpeg-turbo is built with SIMD. */
#ifdef WITH_SIMD
typedef short pa_islow_mult;
#else
typedef int pa_islow_mult;
#endif

#if defined(__x86_64__)
#define PA_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PA_SIMD_CLONES
#endif

/* libjpeg's FIX(x) at CONST_BITS = 13. */
#define PA_FIX(x) ((uint32_t)((x) * 8192 + 0.5))
/* Pass 1's rounding (ONE << (CONST_BITS - PASS1_BITS - 1)) and shift (CONST_BITS - PASS1_BITS). */
#define PA_PASS1_ROUND (1u << 10)
#define PA_PASS1_SHIFT 11
/* Pass 2's rounding, added to the DC term before it is shifted up by CONST_BITS. */
#define PA_PASS2_ROUND 16u
/* The largest dequantised coefficient pass 1 is exact for in 32 bits (see above). */
#define PA_EXACT_LIMIT 8191

/* Helpers are macros, not functions: a 256-bit vector passed to a function compiled for the
   baseline changes the calling convention, which clang refuses inside a target_clones body. */

/* Coefficient row `k` (8 columns) times the quantisation table's row: libjpeg's DEQUANTIZE. */
#define PA_DEQUANTIZE(coef, quant, k)                                                          \
    ({                                                                                        \
        pa_i16x8 c_;                                                                          \
        memcpy(&c_, (coef) + (k) * DCTSIZE, sizeof c_);                                       \
        pa_i32x8 q_;                                                                          \
        for (int i_ = 0; i_ < 8; i_++) q_[i_] = (quant)[(k) * DCTSIZE + i_];                  \
        (pa_u32x8)(__builtin_convertvector(c_, pa_i32x8) * q_);                               \
    })

#define PA_ABS(v) __builtin_elementwise_abs((pa_i32x8)(v))
#define PA_MAX(a, b) __builtin_elementwise_max(a, b)

/* Nonzero when a lane below `n` of the running maximum of absolute values is out of range. */
#define PA_OUT_OF_RANGE(maximum, n)                                                            \
    __builtin_reduce_or((pa_i32x8)((maximum) > PA_EXACT_LIMIT) &                              \
                        ((pa_i32x8){0, 1, 2, 3, 4, 5, 6, 7} < (n)))

/* In an IDCT's body (its parameters in scope): coefficient rows 0..n-1 dequantised into d[]; a
   block with a coefficient the SIMD IDCT is not exact for goes to libjpeg's own NxN IDCT, and
   the function returns. */
#define PA_LOAD_OR_HAND_OVER(n, d)                                                             \
    do {                                                                                      \
        const pa_islow_mult *quant_ = (const pa_islow_mult *)comp->dct_table;                 \
        pa_i32x8 m_ = {0};                                                                    \
        for (int k_ = 0; k_ < (n); k_++) {                                                    \
            (d)[k_] = PA_DEQUANTIZE(coef, quant_, k_);                                        \
            m_ = PA_MAX(m_, PA_ABS((d)[k_]));                                                 \
        }                                                                                     \
        if (PA_OUT_OF_RANGE(m_, n)) {                                                         \
            pa_jpeg_libjpeg_idct(cinfo, n)(cinfo, comp, coef, output, column);                \
            return;                                                                           \
        }                                                                                     \
    } while (0)

/* libjpeg's RIGHT_SHIFT: arithmetic. */
#define PA_SRA(v, s) ((pa_u32x8)((pa_i32x8)(v) >> (s)))

/* The 8x8 transpose: rows r0..r7 (lanes = columns) into c[0..7] (lanes = rows). */
#define PA_TRANSPOSE(c, r0, r1, r2, r3, r4, r5, r6, r7)                                       \
    do {                                                                                      \
        pa_u32x8 a0_ = __builtin_shufflevector(r0, r1, 0, 8, 1, 9, 4, 12, 5, 13);              \
        pa_u32x8 a1_ = __builtin_shufflevector(r0, r1, 2, 10, 3, 11, 6, 14, 7, 15);            \
        pa_u32x8 a2_ = __builtin_shufflevector(r2, r3, 0, 8, 1, 9, 4, 12, 5, 13);              \
        pa_u32x8 a3_ = __builtin_shufflevector(r2, r3, 2, 10, 3, 11, 6, 14, 7, 15);            \
        pa_u32x8 a4_ = __builtin_shufflevector(r4, r5, 0, 8, 1, 9, 4, 12, 5, 13);              \
        pa_u32x8 a5_ = __builtin_shufflevector(r4, r5, 2, 10, 3, 11, 6, 14, 7, 15);            \
        pa_u32x8 a6_ = __builtin_shufflevector(r6, r7, 0, 8, 1, 9, 4, 12, 5, 13);              \
        pa_u32x8 a7_ = __builtin_shufflevector(r6, r7, 2, 10, 3, 11, 6, 14, 7, 15);            \
        pa_u32x8 b0_ = __builtin_shufflevector(a0_, a2_, 0, 1, 8, 9, 4, 5, 12, 13);            \
        pa_u32x8 b1_ = __builtin_shufflevector(a0_, a2_, 2, 3, 10, 11, 6, 7, 14, 15);          \
        pa_u32x8 b2_ = __builtin_shufflevector(a1_, a3_, 0, 1, 8, 9, 4, 5, 12, 13);            \
        pa_u32x8 b3_ = __builtin_shufflevector(a1_, a3_, 2, 3, 10, 11, 6, 7, 14, 15);          \
        pa_u32x8 b4_ = __builtin_shufflevector(a4_, a6_, 0, 1, 8, 9, 4, 5, 12, 13);            \
        pa_u32x8 b5_ = __builtin_shufflevector(a4_, a6_, 2, 3, 10, 11, 6, 7, 14, 15);          \
        pa_u32x8 b6_ = __builtin_shufflevector(a5_, a7_, 0, 1, 8, 9, 4, 5, 12, 13);            \
        pa_u32x8 b7_ = __builtin_shufflevector(a5_, a7_, 2, 3, 10, 11, 6, 7, 14, 15);          \
        (c)[0] = __builtin_shufflevector(b0_, b4_, 0, 1, 2, 3, 8, 9, 10, 11);                  \
        (c)[1] = __builtin_shufflevector(b1_, b5_, 0, 1, 2, 3, 8, 9, 10, 11);                  \
        (c)[2] = __builtin_shufflevector(b2_, b6_, 0, 1, 2, 3, 8, 9, 10, 11);                  \
        (c)[3] = __builtin_shufflevector(b3_, b7_, 0, 1, 2, 3, 8, 9, 10, 11);                  \
        (c)[4] = __builtin_shufflevector(b0_, b4_, 4, 5, 6, 7, 12, 13, 14, 15);                \
        (c)[5] = __builtin_shufflevector(b1_, b5_, 4, 5, 6, 7, 12, 13, 14, 15);                \
        (c)[6] = __builtin_shufflevector(b2_, b6_, 4, 5, 6, 7, 12, 13, 14, 15);                \
        (c)[7] = __builtin_shufflevector(b3_, b7_, 4, 5, 6, 7, 12, 13, 14, 15);                \
    } while (0)

/* A final sum to samples: bits 18..27 as a signed number, plus 128, clamped (range_limit). */
#define PA_SAMPLES(v)                                                                          \
    ({                                                                                        \
        pa_i32x8 s_ = ((pa_i32x8)((pa_u32x8)(v) << 4) >> 22) + 128;                           \
        s_ = __builtin_elementwise_min(PA_MAX(s_, (pa_i32x8){0}),                             \
                                       (pa_i32x8){255, 255, 255, 255, 255, 255, 255, 255});   \
        __builtin_convertvector(s_, pa_u8x8);                                                 \
    })

/* Output columns o0..o7 (samples, lanes = rows) into `n` rows of `n` samples each. */
#define PA_STORE(n, output, column, o0, o1, o2, o3, o4, o5, o6, o7)                           \
    do {                                                                                      \
        pa_u8x16 p0_ = __builtin_shufflevector(o0, o1, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);  \
        pa_u8x16 p1_ = __builtin_shufflevector(o2, o3, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);  \
        pa_u8x16 p2_ = __builtin_shufflevector(o4, o5, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);  \
        pa_u8x16 p3_ = __builtin_shufflevector(o6, o7, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);  \
        pa_u8x16 q0_ = __builtin_shufflevector(p0_, p1_, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);  \
        pa_u8x16 q1_ = __builtin_shufflevector(p0_, p1_, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31); \
        pa_u8x16 q2_ = __builtin_shufflevector(p2_, p3_, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);  \
        pa_u8x16 q3_ = __builtin_shufflevector(p2_, p3_, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31); \
        pa_u8x16 rows_[4] = {                                                                 \
            __builtin_shufflevector(q0_, q2_, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23),     \
            __builtin_shufflevector(q0_, q2_, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31), \
            __builtin_shufflevector(q1_, q3_, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23),     \
            __builtin_shufflevector(q1_, q3_, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31), \
        };                                                                                    \
        const uint8_t *bytes_ = (const uint8_t *)rows_;                                       \
        for (int r_ = 0; r_ < (n); r_++) memcpy((output)[r_] + (column), bytes_ + 8 * r_, (n)); \
    } while (0)

static const pa_u32x8 pa_zero = {0};
static const pa_u8x8 pa_zero_bytes = {0};

/* The 3-point IDCT (c1 = sqrt(2) cos(pi/6)): x0..x2 in, the three sums before the final shift. */
#define PA_IDCT3(x0, x1, x2, y0, y1, y2)                                                       \
    do {                                                                                      \
        pa_u32x8 e_ = (x2) * PA_FIX(0.707106781);                                             \
        pa_u32x8 even_ = (x0) + e_, middle_ = (x0) - e_ - e_;                                 \
        pa_u32x8 odd_ = (x1) * PA_FIX(1.224744871);                                           \
        y0 = even_ + odd_;                                                                    \
        y2 = even_ - odd_;                                                                    \
        y1 = middle_;                                                                         \
    } while (0)

PA_SIMD_CLONES
static void pa_idct_3x3(j_decompress_ptr cinfo, jpeg_component_info *comp, JCOEFPTR coef, JSAMPARRAY output,
                        JDIMENSION column) {
    pa_u32x8 d[3];
    PA_LOAD_OR_HAND_OVER(3, d);
    pa_u32x8 w0, w1, w2, v[8], o0, o1, o2;
    PA_IDCT3((d[0] << 13) + PA_PASS1_ROUND, d[1], d[2], w0, w1, w2);
    w0 = PA_SRA(w0, PA_PASS1_SHIFT), w1 = PA_SRA(w1, PA_PASS1_SHIFT), w2 = PA_SRA(w2, PA_PASS1_SHIFT);
    PA_TRANSPOSE(v, w0, w1, w2, pa_zero, pa_zero, pa_zero, pa_zero, pa_zero);
    PA_IDCT3((v[0] + PA_PASS2_ROUND) << 13, v[1], v[2], o0, o1, o2);
    PA_STORE(3, output, column, PA_SAMPLES(o0), PA_SAMPLES(o1), PA_SAMPLES(o2), pa_zero_bytes, pa_zero_bytes,
             pa_zero_bytes, pa_zero_bytes, pa_zero_bytes);
}

/* The 5-point IDCT (cK = sqrt(2) cos(K pi/10)), x0 already shifted up and rounded. */
#define PA_IDCT5(x0, x1, x2, x3, x4, y0, y1, y2, y3, y4)                                       \
    do {                                                                                      \
        pa_u32x8 z1_ = ((x2) + (x4)) * PA_FIX(0.790569415); /* (c2+c4)/2 */                   \
        pa_u32x8 z2_ = ((x2) - (x4)) * PA_FIX(0.353553391); /* (c2-c4)/2 */                   \
        pa_u32x8 z3_ = (x0) + z2_;                                                            \
        pa_u32x8 e0_ = z3_ + z1_, e1_ = z3_ - z1_, e2_ = (x0) - (z2_ << 2);                   \
        pa_u32x8 z4_ = ((x1) + (x3)) * PA_FIX(0.831253876); /* c3 */                          \
        pa_u32x8 o0_ = z4_ + (x1) * PA_FIX(0.513743148);    /* c1-c3 */                       \
        pa_u32x8 o1_ = z4_ - (x3) * PA_FIX(2.176250899);    /* c1+c3 */                       \
        y0 = e0_ + o0_;                                                                       \
        y4 = e0_ - o0_;                                                                       \
        y1 = e1_ + o1_;                                                                       \
        y3 = e1_ - o1_;                                                                       \
        y2 = e2_;                                                                             \
    } while (0)

PA_SIMD_CLONES
static void pa_idct_5x5(j_decompress_ptr cinfo, jpeg_component_info *comp, JCOEFPTR coef, JSAMPARRAY output,
                        JDIMENSION column) {
    pa_u32x8 d[5];
    PA_LOAD_OR_HAND_OVER(5, d);
    pa_u32x8 w[5], v[8], o[5];
    PA_IDCT5((d[0] << 13) + PA_PASS1_ROUND, d[1], d[2], d[3], d[4], w[0], w[1], w[2], w[3], w[4]);
    for (int i = 0; i < 5; i++) w[i] = PA_SRA(w[i], PA_PASS1_SHIFT);
    PA_TRANSPOSE(v, w[0], w[1], w[2], w[3], w[4], pa_zero, pa_zero, pa_zero);
    PA_IDCT5((v[0] + PA_PASS2_ROUND) << 13, v[1], v[2], v[3], v[4], o[0], o[1], o[2], o[3], o[4]);
    PA_STORE(5, output, column, PA_SAMPLES(o[0]), PA_SAMPLES(o[1]), PA_SAMPLES(o[2]), PA_SAMPLES(o[3]),
             PA_SAMPLES(o[4]), pa_zero_bytes, pa_zero_bytes, pa_zero_bytes);
}

/* The 6-point IDCT (cK = sqrt(2) cos(K pi/12)), x0 already shifted up and rounded. Its middle
   outputs (1 and 4) differ between the passes, as in libjpeg: pass 1 shifts the even part down
   before it adds the odd part at PASS1_BITS, pass 2 adds it at CONST_BITS; both are left to the
   caller as `middle` (even) and `odd_middle` (x1 - x3 - x5, unshifted). */
#define PA_IDCT6(x0, x1, x2, x3, x4, x5, y0, y2, y3, y5, middle, odd_middle)                  \
    do {                                                                                      \
        pa_u32x8 c4_ = (x4) * PA_FIX(0.707106781);                                            \
        pa_u32x8 e_ = (x0) + c4_;                                                             \
        middle = (x0) - c4_ - c4_;                                                            \
        pa_u32x8 c2_ = (x2) * PA_FIX(1.224744871);                                            \
        pa_u32x8 e0_ = e_ + c2_, e2_ = e_ - c2_;                                              \
        pa_u32x8 c5_ = ((x1) + (x5)) * PA_FIX(0.366025404);                                   \
        pa_u32x8 o0_ = c5_ + (((x1) + (x3)) << 13);                                           \
        pa_u32x8 o2_ = c5_ + (((x5) - (x3)) << 13);                                           \
        odd_middle = (x1) - (x3) - (x5);                                                      \
        y0 = e0_ + o0_;                                                                       \
        y5 = e0_ - o0_;                                                                       \
        y2 = e2_ + o2_;                                                                       \
        y3 = e2_ - o2_;                                                                       \
    } while (0)

PA_SIMD_CLONES
static void pa_idct_6x6(j_decompress_ptr cinfo, jpeg_component_info *comp, JCOEFPTR coef, JSAMPARRAY output,
                        JDIMENSION column) {
    pa_u32x8 d[6];
    PA_LOAD_OR_HAND_OVER(6, d);
    pa_u32x8 w[6], v[8], o[6], middle, odd_middle;
    PA_IDCT6((d[0] << 13) + PA_PASS1_ROUND, d[1], d[2], d[3], d[4], d[5], w[0], w[2], w[3], w[5], middle,
             odd_middle);
    w[0] = PA_SRA(w[0], PA_PASS1_SHIFT), w[2] = PA_SRA(w[2], PA_PASS1_SHIFT);
    w[3] = PA_SRA(w[3], PA_PASS1_SHIFT), w[5] = PA_SRA(w[5], PA_PASS1_SHIFT);
    middle = PA_SRA(middle, PA_PASS1_SHIFT);
    w[1] = middle + (odd_middle << 2), w[4] = middle - (odd_middle << 2);
    PA_TRANSPOSE(v, w[0], w[1], w[2], w[3], w[4], w[5], pa_zero, pa_zero);
    PA_IDCT6((v[0] + PA_PASS2_ROUND) << 13, v[1], v[2], v[3], v[4], v[5], o[0], o[2], o[3], o[5], middle,
             odd_middle);
    o[1] = middle + (odd_middle << 13), o[4] = middle - (odd_middle << 13);
    PA_STORE(6, output, column, PA_SAMPLES(o[0]), PA_SAMPLES(o[1]), PA_SAMPLES(o[2]), PA_SAMPLES(o[3]),
             PA_SAMPLES(o[4]), PA_SAMPLES(o[5]), pa_zero_bytes, pa_zero_bytes);
}

/* The 7-point IDCT (cK = sqrt(2) cos(K pi/14)), x0 already shifted up and rounded. */
#define PA_IDCT7(x0, x1, x2, x3, x4, x5, x6, y0, y1, y2, y3, y4, y5, y6)                       \
    do {                                                                                      \
        pa_u32x8 t13_ = (x0);                                                                 \
        pa_u32x8 t10_ = ((x4) - (x6)) * PA_FIX(0.881747734);              /* c4 */            \
        pa_u32x8 t12_ = ((x2) - (x4)) * PA_FIX(0.314692123);              /* c6 */            \
        pa_u32x8 t11_ = t10_ + t12_ + t13_ - (x4) * PA_FIX(1.841218003);  /* c2+c4-c6 */      \
        pa_u32x8 s_ = (x2) + (x6);                                                            \
        pa_u32x8 rest_ = (x4) - s_;                                                           \
        pa_u32x8 t0_ = s_ * PA_FIX(1.274162392) + t13_;                   /* c2 */            \
        t10_ += t0_ - (x6) * PA_FIX(0.077722536);                         /* c2-c4-c6 */      \
        t12_ += t0_ - (x2) * PA_FIX(2.470602249);                         /* c2+c4+c6 */      \
        t13_ += rest_ * PA_FIX(1.414213562);                              /* c0 */            \
        pa_u32x8 a_ = ((x1) + (x3)) * PA_FIX(0.935414347);                /* (c3+c1-c5)/2 */  \
        pa_u32x8 b_ = ((x1) - (x3)) * PA_FIX(0.170262339);                /* (c3+c5-c1)/2 */  \
        pa_u32x8 o0_ = a_ - b_, o1_ = a_ + b_;                                                \
        pa_u32x8 o2_ = ((x3) + (x5)) * (0u - PA_FIX(1.378756276));        /* -c1 */           \
        o1_ += o2_;                                                                           \
        pa_u32x8 c5_ = ((x1) + (x5)) * PA_FIX(0.613604268);               /* c5 */            \
        o0_ += c5_;                                                                           \
        o2_ += c5_ + (x5) * PA_FIX(1.870828693);                          /* c3+c1-c5 */      \
        y0 = t10_ + o0_;                                                                      \
        y6 = t10_ - o0_;                                                                      \
        y1 = t11_ + o1_;                                                                      \
        y5 = t11_ - o1_;                                                                      \
        y2 = t12_ + o2_;                                                                      \
        y4 = t12_ - o2_;                                                                      \
        y3 = t13_;                                                                            \
    } while (0)

PA_SIMD_CLONES
static void pa_idct_7x7(j_decompress_ptr cinfo, jpeg_component_info *comp, JCOEFPTR coef, JSAMPARRAY output,
                        JDIMENSION column) {
    pa_u32x8 d[7];
    PA_LOAD_OR_HAND_OVER(7, d);
    pa_u32x8 w[7], v[8], o[7];
    PA_IDCT7((d[0] << 13) + PA_PASS1_ROUND, d[1], d[2], d[3], d[4], d[5], d[6], w[0], w[1], w[2], w[3], w[4],
             w[5], w[6]);
    for (int i = 0; i < 7; i++) w[i] = PA_SRA(w[i], PA_PASS1_SHIFT);
    PA_TRANSPOSE(v, w[0], w[1], w[2], w[3], w[4], w[5], w[6], pa_zero);
    PA_IDCT7((v[0] + PA_PASS2_ROUND) << 13, v[1], v[2], v[3], v[4], v[5], v[6], o[0], o[1], o[2], o[3], o[4],
             o[5], o[6]);
    PA_STORE(7, output, column, PA_SAMPLES(o[0]), PA_SAMPLES(o[1]), PA_SAMPLES(o[2]), PA_SAMPLES(o[3]),
             PA_SAMPLES(o[4]), PA_SAMPLES(o[5]), PA_SAMPLES(o[6]), pa_zero_bytes);
}

inverse_DCT_method_ptr pa_scaled_idct(int n) {
    switch (n) {
    case 3: return pa_idct_3x3;
    case 5: return pa_idct_5x5;
    case 6: return pa_idct_6x6;
    case 7: return pa_idct_7x7;
    default: return NULL;
    }
}
