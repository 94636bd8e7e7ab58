#ifndef PA_HASH_SHIM_H
#define PA_HASH_SHIM_H
#include <stddef.h>
#include <stdint.h>

/* SHA-256's block function on the CPU's SHA extensions (x86-64 SHA-NI), for SystemSupport's
 * SHA256: 1 when this CPU has them (SHA, SSSE3 and SSE4.1, asked of CPUID), else 0, and always
 * 0 off x86-64. */
int pa_sha256_has_hardware(void);

/* Compresses `blocks` 64-byte blocks of `data` into `state` (the eight working words, FIPS 180-4
 * order, host endianness). Only to be called when pa_sha256_has_hardware() is 1. */
void pa_sha256_hardware_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

/* SHA-256's 64 round constants (FIPS 180-4 4.2.2), for both block functions. */
const uint32_t *pa_sha256_round_constants(void);

#endif
