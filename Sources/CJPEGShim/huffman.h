/*
 * A baseline JPEG's Huffman decoding, faster than libjpeg-turbo 2.1's and exact where it decodes
 * at all: see huffman.c. Internal to CJPEGShim (shim.c installs it as the scan's decode_mcu).
 */
#ifndef PA_HUFFMAN_H
#define PA_HUFFMAN_H

#include <stdio.h>

#include <jpeglib.h>

typedef struct pa_huff pa_huff;

/* After jpeg_start_decompress, before the first MCU: the decoder for the scan `cinfo` is at, or
   NULL when it does not take it (anything but one 8-bit sequential Huffman scan of every
   component, with its tables). */
pa_huff *pa_huff_create(j_decompress_ptr cinfo);
void pa_huff_destroy(pa_huff *huff);
/* Bytes one decoder holds (its tables), for the decode's working-memory estimate. */
size_t pa_huff_memory(void);

/* The next MCU into MCU_data (blocks the caller zeroed, as for libjpeg's decode_mcu; NULL
   decodes without storing): 1 when it is decoded exactly as libjpeg's decoder would, without a
   warning; 0 at anything else (a bad code, a premature end or marker, a coefficient past the
   block, junk or a wrong marker at a restart or the end), which leaves MCU_data written to and
   this decoder unusable: the caller decodes from there with libjpeg. After the last MCU, 1 also
   means the data ended cleanly at EOI, and cinfo->src is left at that marker as libjpeg would
   leave it for jpeg_finish_decompress. */
int pa_huff_decode_mcu(pa_huff *huff, j_decompress_ptr cinfo, JBLOCKROW *MCU_data);

/* MCUs decoded so far (each a 1 from pa_huff_decode_mcu). */
unsigned long pa_huff_mcus_done(const pa_huff *huff);

#endif
