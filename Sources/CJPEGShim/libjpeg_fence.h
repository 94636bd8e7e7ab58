/*
 * The libjpeg-turbo versions CJPEGShim's own decoding was written and checked against.
 *
 * huffman.c (the baseline Huffman decoder), scaled_idct.c (the SIMD 3x3-7x7 IDCTs) and shim.c
 * (installing both, chroma at its own scale, the hand-over to libjpeg's decoder) read and replace
 * libjpeg-turbo's internal structs from jpegint.h: the entropy decoder's decode_mcu, the IDCT
 * method table, the marker reader's restart state, jdhuff.c's and jidctint.c's arithmetic. None
 * of that is API: another libjpeg-turbo may lay it out or compute it differently, and the decoder
 * would then read the wrong fields or give different pixels, silently. So the build stops here
 * unless jpeglib.h is libjpeg-turbo 2.1.x with 8-bit samples.
 *
 * To build against another version: compare jpegint.h, jdhuff.c, jddctmgr.c, jdcoefct.c and
 * jidctint.c of that version with 2.1.5's, adapt the three files, run JPEGOwnHuffmanTests,
 * JPEGScaledIDCTTests and JPEGPlanesTests (and `make fuzz FUZZ_TARGETS=jpeg`), then widen the
 * range below. At run time PUSHATTACH_JPEG_DECODER=libjpeg leaves every decode to libjpeg
 * (pa_jpeg_set_own_decoding), but the files must still compile.
 */
#ifndef PA_LIBJPEG_FENCE_H
#define PA_LIBJPEG_FENCE_H

#include <stdio.h>

#include <jpeglib.h>

/* The checked range, as LIBJPEG_TURBO_VERSION_NUMBER counts (2001005 is 2.1.5): [min, max]. */
#define PA_LIBJPEG_TURBO_CHECKED_MIN 2001000
#define PA_LIBJPEG_TURBO_CHECKED_MAX 2001999

#if !defined(LIBJPEG_TURBO_VERSION_NUMBER)
#error "CJPEGShim: jpeglib.h is not libjpeg-turbo's (no LIBJPEG_TURBO_VERSION_NUMBER in jconfig.h). The own Huffman decoder and IDCTs (huffman.c, scaled_idct.c) read libjpeg-turbo 2.1's internal structs: install libjpeg-turbo 2.1 (Debian 12: apt-get install libjpeg62-turbo-dev), see libjpeg_fence.h."
#elif LIBJPEG_TURBO_VERSION_NUMBER < PA_LIBJPEG_TURBO_CHECKED_MIN || LIBJPEG_TURBO_VERSION_NUMBER > PA_LIBJPEG_TURBO_CHECKED_MAX
#error "CJPEGShim: this libjpeg-turbo (LIBJPEG_TURBO_VERSION in jconfig.h) is not 2.1.x, the version the own Huffman decoder and IDCTs (huffman.c, scaled_idct.c, shim.c) read the internal structs of. Build against libjpeg-turbo 2.1 (Debian 12: libjpeg62-turbo-dev), or check those files against this version and widen PA_LIBJPEG_TURBO_CHECKED_MIN/MAX: see libjpeg_fence.h."
#endif

#if JPEG_LIB_VERSION != 62 || BITS_IN_JSAMPLE != 8
#error "CJPEGShim: libjpeg-turbo must be built with the libjpeg 6b API (JPEG_LIB_VERSION 62) and 8-bit samples (BITS_IN_JSAMPLE 8), as Debian's libjpeg62-turbo-dev is: huffman.c and scaled_idct.c assume both. See libjpeg_fence.h."
#endif

#endif
