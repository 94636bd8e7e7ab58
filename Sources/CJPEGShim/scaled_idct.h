/*
 * libjpeg's scaled IDCTs (3x3, 5x5, 6x6, 7x7) in SIMD, for the decoder in shim.c. Private to the
 * shim: see scaled_idct.c for why and how they equal libjpeg's output byte for byte.
 */
#ifndef PA_SCALED_IDCT_H
#define PA_SCALED_IDCT_H

/* Include after <jpeglib.h> and <jpegint.h> (inverse_DCT_method_ptr), which has no include guard. */

/* The SIMD IDCT for an NxN output block, or NULL for the sizes libjpeg-turbo already does in SIMD
   (1, 2, 4, 8) or that it does not scale to (over 8). Used only where libjpeg would run its
   own jpeg_idct_NxN, which the component's quantisation table (ISLOW) is then built for. */
inverse_DCT_method_ptr pa_scaled_idct(int n);

/* Defined in shim.c: libjpeg's own NxN IDCT, saved when the SIMD one replaced it. A block whose
   dequantised coefficients leave the range the SIMD IDCT is exact for goes to it. */
inverse_DCT_method_ptr pa_jpeg_libjpeg_idct(j_decompress_ptr cinfo, int n);

#endif
