/*
 * SHA-256's block function on the SHA extensions of x86-64 CPUs (Intel since Goldmont and Ice
 * Lake, AMD since Zen), for SystemSupport's SHA256.
 *
 * Why: `prepare` hashes every file it writes for the manifest, and the Swift block function was
 * 3.2 % of the 500-URL job's CPU (perf, Benchmarks/RESULTS.md run S), about 300 MB/s; these
 * instructions do four rounds in two `sha256rnds2` and the message schedule in `sha256msg1/2`.
 *
 * How: Intel's published sequence ("Intel SHA Extensions", 2013). The state is kept as ABEF and
 * CDGH in two registers, as `sha256rnds2` wants it; each group of four rounds adds its four
 * constants to four schedule words, and from the fifth group on a group's words are made from
 * the four groups before it (W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16]): msg1 adds
 * s0(W[t-15]) to W[t-16], alignr brings W[t-7], msg2 adds s1(W[t-2]). The loop over the sixteen
 * groups keeps the last four in a ring.
 *
 * The functions carry their own target attribute, so the rest of the package is built for the
 * baseline CPU, and SHA256 calls them only after pa_sha256_has_hardware() said yes. Checked
 * against the Swift block function on every length up to 1,000 bytes and on megabytes of data
 * (Tests/PipelineTests/Hashing/SHA256HardwareTests.swift).
 */
#include "CHashShim.h"

/* FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64
 * primes. The Swift block function reads them too (pa_sha256_round_constants). */
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

const uint32_t *pa_sha256_round_constants(void) { return K; }

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

/* Asks CPUID each time; SHA256 asks once (a Swift static). */
int pa_sha256_has_hardware(void) {
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) && (c & bit_SSE4_1)
        && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
}


__attribute__((target("sha,ssse3,sse4.1")))
void pa_sha256_hardware_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    // Big-endian words: reverse the bytes of each 32-bit lane.
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);

    // state[0..3] = ABCD, state[4..7] = EFGH  ->  ABEF and CDGH (high lane first).
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);    // CDAB
    __m128i cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);   // EFGH
    __m128i abef = _mm_alignr_epi8(tmp, cdgh, 8);                                          // ABEF
    cdgh = _mm_blend_epi16(cdgh, tmp, 0xF0);                                               // CDGH

    for (; blocks > 0; blocks--, data += 64) {
        const __m128i abef_before = abef, cdgh_before = cdgh;
        __m128i w[4];
        for (int g = 0; g < 16; g++) {
            __m128i words;
            if (g < 4) {
                words = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), swap);
            } else {
                // w[g & 3] still holds group g - 4; the others are g - 3, g - 2, g - 1.
                words = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
                words = _mm_add_epi32(words, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
                words = _mm_sha256msg2_epu32(words, w[(g + 3) & 3]);
            }
            w[g & 3] = words;
            __m128i message = _mm_add_epi32(words, _mm_loadu_si128((const __m128i *)&K[4 * g]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, message);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(message, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef_before);
        cdgh = _mm_add_epi32(cdgh, cdgh_before);
    }

    // Back to ABCD and EFGH.
    tmp = _mm_shuffle_epi32(abef, 0x1B);                 // FEBA
    cdgh = _mm_shuffle_epi32(cdgh, 0xB1);                // DCHG
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(tmp, cdgh, 0xF0));   // DCBA
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(cdgh, tmp, 8));      // HGFE
}

#else

int pa_sha256_has_hardware(void) { return 0; }

/* Never called here (pa_sha256_has_hardware() is 0): stop rather than leave the state unhashed. */
void pa_sha256_hardware_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    (void)state; (void)data; (void)blocks;
    __builtin_trap();
}

#endif
