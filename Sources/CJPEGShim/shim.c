/*
 * The JPEG row decoder's C side: libjpeg-turbo's scanline API with setjmp error handling.
 * See include/CJPEGShim.h for the calls and their order.
 */
#include "CJPEGShim.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libjpeg_fence.h"
#include <jpegint.h> /* struct jpeg_inverse_dct: the per-component IDCT of the output pass */
#include <jerror.h>  /* the message codes failures and warnings are classified by */

#include "huffman.h"
#include "scaled_idct.h"

/* The error manager with the jump target of the entry point currently running. */
typedef struct pa_jpeg_error_mgr {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
} pa_jpeg_error_mgr;

struct pa_jpeg_decoder {
    /* First member: libjpeg's callbacks get `cinfo` and find the decoder at the same address. */
    struct jpeg_decompress_struct cinfo;
    pa_jpeg_error_mgr err;
    struct jpeg_progress_mgr progress;

    int created;          /* jpeg_create_decompress succeeded: destroy must undo it */
    int failed;           /* a call longjmp'd out: libjpeg's state is unusable, only destroy */
    int strict;           /* a warning is an error (TurboJPEG's TJFLAG_STOPONWARNING) */
    int strict_suspended; /* while reading the ICC profile: a broken one stays a warning */
    int buffered;         /* buffered-image mode, for the DC-only early stop */
    int stopped_early;
    int started;
    int finished;
    unsigned rows_done; /* pa_jpeg_read_rows' count, kept here so no local lives across setjmp */
    const unsigned char *data;
    size_t stop_offset; /* where the input stood after an early stop */

    unsigned char *icc;
    unsigned int icc_length;

    /* The luma's NxN IDCT, which pa_jpeg_idct_chroma_at_own_scale runs for the chroma too. */
    inverse_DCT_method_ptr own_scale_idct;
    /* libjpeg's own NxN IDCT where scaled_idct.c's replaced it, by N: the SIMD one hands it the
       blocks it is not exact for. */
    inverse_DCT_method_ptr libjpeg_idct[DCTSIZE + 1];

    /* The scan's own Huffman decoder (huffman.c) while it decodes, installed as the entropy
       decoder's decode_mcu (pa_jpeg_decode_mcu); after it gave up, `shadow`: a second
       decompressor over the same bytes whose libjpeg decoder took over, its warnings and errors
       this one's (`forward`, set in the shadow). */
    pa_huff *huff;
    struct pa_jpeg_decoder *shadow;
    struct pa_jpeg_decoder *forward;
    int own_huffman_off; /* pa_jpeg_set_own_huffman(d, 0), and every shadow */
    int own_idct_off;    /* pa_jpeg_set_own_idct(d, 0): libjpeg's IDCTs, chroma upscaled as libjpeg does */
    size_t length;

    char error[JMSG_LENGTH_MAX];
    int error_code; /* libjpeg's msg_code of the failure; 0 (JMSG_NOMESSAGE) for the shim's own */
    unsigned long warning_count;
    unsigned warnings_kept;
    int warning_codes[PA_JPEG_MAX_WARNINGS];
    char warnings[PA_JPEG_MAX_WARNINGS][JMSG_LENGTH_MAX];
};

static pa_jpeg_decoder *pa_jpeg_owner(j_common_ptr cinfo) {
    return (pa_jpeg_decoder *)(void *)cinfo;
}

/* error_exit: keep the words, then leave through the running entry point's setjmp (a shadow's:
   the decoder it decodes for, whose entry point is the one running). */
static void pa_jpeg_error_exit(j_common_ptr cinfo) {
    pa_jpeg_decoder *d = pa_jpeg_owner(cinfo);
    if (d->forward) d = d->forward;
    (*cinfo->err->format_message)(cinfo, d->error);
    d->error_code = cinfo->err->msg_code;
    longjmp(d->err.jump, 1);
}

/* emit_message: libjpeg's own prints only the first warning (num_warnings == 0), and
   TurboJPEG kept only that one's text, so a harmless warning early on hid real damage later.
   Here every warning (msg_level -1) is counted and the first text of each kind (msg_code) kept:
   a Motion-JPEG frame says "N extraneous bytes before marker 0xdN" at every restart marker, a
   broken progression "Inconsistent progression sequence" once per coefficient. Trace messages
   (msg_level >= 0) are dropped. */
static void pa_jpeg_emit_message(j_common_ptr cinfo, int msg_level) {
    if (msg_level >= 0) return;
    pa_jpeg_decoder *d = pa_jpeg_owner(cinfo);
    if (d->forward) d = d->forward;
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    cinfo->err->num_warnings++;
    d->warning_count++;
    int code = cinfo->err->msg_code;
    if (d->strict && !d->strict_suspended) {
        memcpy(d->error, message, sizeof message);
        d->error_code = code;
        longjmp(d->err.jump, 1);
    }
    for (unsigned i = 0; i < d->warnings_kept; i++) {
        if (d->warning_codes[i] == code) return;
    }
    if (d->warnings_kept < PA_JPEG_MAX_WARNINGS) {
        d->warning_codes[d->warnings_kept] = code;
        memcpy(d->warnings[d->warnings_kept], message, sizeof message);
        d->warnings_kept++;
    }
}

/* The scan limit: a progressive file can hold thousands of tiny scans, each costing a pass
   over the whole coefficient buffer, so a few KB take minutes to decode (the shape
   libjpeg-turbo's fuzzing found). TurboJPEG's TJFLAG_LIMITSCANS refuses more than 500 scans;
   same limit, same words here. */
static void pa_jpeg_check_scans(pa_jpeg_decoder *d) {
    if (d->cinfo.input_scan_number > PA_JPEG_MAX_SCANS) {
        snprintf(d->error, sizeof d->error, "Progressive JPEG image has more than %d scans", PA_JPEG_MAX_SCANS);
        longjmp(d->err.jump, 1);
    }
}

static void pa_jpeg_progress_monitor(j_common_ptr cinfo) {
    if (cinfo->is_decompressor) pa_jpeg_check_scans(pa_jpeg_owner(cinfo));
}

static int pa_jpeg_fail(pa_jpeg_decoder *d) {
    d->failed = 1;
    if (d->error[0] == '\0') snprintf(d->error, sizeof d->error, "libjpeg failed without a message");
    return PA_JPEG_ERROR;
}

pa_jpeg_decoder *pa_jpeg_create(const unsigned char *data, size_t length, int strict) {
    pa_jpeg_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->strict = strict != 0;
    d->data = data;
    d->length = length;
    d->cinfo.err = jpeg_std_error(&d->err.pub);
    d->err.pub.error_exit = pa_jpeg_error_exit;
    d->err.pub.emit_message = pa_jpeg_emit_message;
    if (setjmp(d->err.jump)) {
        pa_jpeg_fail(d);
        return d;  /* the next call reports the message */
    }
    jpeg_create_decompress(&d->cinfo);
    d->created = 1;
    d->progress.progress_monitor = pa_jpeg_progress_monitor;
    d->cinfo.progress = &d->progress;
    jpeg_mem_src(&d->cinfo, data, (unsigned long)length);
    return d;
}

void pa_jpeg_destroy(pa_jpeg_decoder *d) {
    if (d == NULL) return;
    /* jpeg_destroy_decompress only frees memory; it cannot call error_exit. */
    if (d->created) jpeg_destroy_decompress(&d->cinfo);
    pa_jpeg_destroy(d->shadow);
    pa_huff_destroy(d->huff);
    free(d->icc);
    free(d);
}

/* TurboJPEG 2.1's getSubsamp(), so readInfo names the same subsampling it did. */
static int pa_jpeg_subsampling(j_decompress_ptr c) {
    static const int mcu_width[6] = {8, 16, 16, 8, 8, 32};
    static const int mcu_height[6] = {8, 8, 16, 8, 16, 8};
    static const int pixel_size[6] = {3, 3, 3, 1, 3, 3};
    int cmyk = c->jpeg_color_space == JCS_YCCK || c->jpeg_color_space == JCS_CMYK;
    if (c->num_components == 1 && c->jpeg_color_space == JCS_GRAYSCALE) return PA_JPEG_SAMP_GRAY;
    for (int i = 0; i < 6; i++) {
        if (!(c->num_components == pixel_size[i] || (cmyk && pixel_size[i] == 3 && c->num_components == 4))) continue;
        if (c->comp_info[0].h_samp_factor == mcu_width[i] / 8 && c->comp_info[0].v_samp_factor == mcu_height[i] / 8) {
            int match = 0;
            for (int k = 1; k < c->num_components; k++) {
                int href = 1, vref = 1;
                if (cmyk && k == 3) {
                    href = mcu_width[i] / 8;
                    vref = mcu_height[i] / 8;
                }
                if (c->comp_info[k].h_samp_factor == href && c->comp_info[k].v_samp_factor == vref) match++;
            }
            if (match == c->num_components - 1) return i;
        }
        /* 4:2:2 and 4:4:0 with sampling factors given in non-standard ways. */
        if (c->comp_info[0].h_samp_factor == 2 && c->comp_info[0].v_samp_factor == 2 &&
            (i == PA_JPEG_SAMP_422 || i == PA_JPEG_SAMP_440)) {
            int match = 0;
            for (int k = 1; k < c->num_components; k++) {
                int href = mcu_height[i] / 8, vref = mcu_width[i] / 8;
                if (cmyk && k == 3) href = vref = 2;
                if (c->comp_info[k].h_samp_factor == href && c->comp_info[k].v_samp_factor == vref) match++;
            }
            if (match == c->num_components - 1) return i;
        }
        /* 4:4:4 with sampling factors given in non-standard ways. */
        if (c->comp_info[0].h_samp_factor * c->comp_info[0].v_samp_factor <= D_MAX_BLOCKS_IN_MCU / pixel_size[i] &&
            i == PA_JPEG_SAMP_444) {
            int match = 0;
            for (int k = 1; k < c->num_components; k++) {
                if (c->comp_info[k].h_samp_factor == c->comp_info[0].h_samp_factor &&
                    c->comp_info[k].v_samp_factor == c->comp_info[0].v_samp_factor)
                    match++;
                if (match == c->num_components - 1) return i;
            }
        }
    }
    return PA_JPEG_SAMP_UNKNOWN;
}

static int pa_jpeg_color_space(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return PA_JPEG_CS_GRAY;
    case JCS_RGB: return PA_JPEG_CS_RGB;
    case JCS_YCbCr: return PA_JPEG_CS_YCBCR;
    case JCS_CMYK: return PA_JPEG_CS_CMYK;
    case JCS_YCCK: return PA_JPEG_CS_YCCK;
    default: return PA_JPEG_CS_UNKNOWN;
    }
}

int pa_jpeg_read_header(pa_jpeg_decoder *d, pa_jpeg_info *info) {
    if (d->failed) return PA_JPEG_ERROR;
    if (setjmp(d->err.jump)) return pa_jpeg_fail(d);
    j_decompress_ptr c = &d->cinfo;
    jpeg_save_markers(c, JPEG_APP0 + 2, 0xFFFF);
    (void)jpeg_read_header(c, TRUE);
    memset(info, 0, sizeof *info);
    info->width = c->image_width;
    info->height = c->image_height;
    info->components = c->num_components;
    info->color_space = pa_jpeg_color_space(c->jpeg_color_space);
    info->subsampling = pa_jpeg_subsampling(c);
    info->progressive = c->progressive_mode ? 1 : 0;
    info->multi_scan = jpeg_has_multiple_scans(c) ? 1 : 0;
    info->saw_adobe_marker = c->saw_Adobe_marker ? 1 : 0;
    info->adobe_transform = c->Adobe_transform;

    /* A broken ICC profile is a note, not damage to the image: strict mode is suspended while
       libjpeg reads the profile, so its warnings there do not refuse the file. */
    d->strict_suspended = 1;
    JOCTET *icc = NULL;
    unsigned int icc_length = 0;
    if (jpeg_read_icc_profile(c, &icc, &icc_length)) {
        d->icc = icc;
        d->icc_length = icc_length;
    }
    d->strict_suspended = 0;
    return PA_JPEG_OK;
}

const unsigned char *pa_jpeg_icc_profile(const pa_jpeg_decoder *d, size_t *length) {
    *length = d->icc_length;
    return d->icc;
}

static size_t pa_jpeg_round_up(size_t value, size_t multiple) {
    return multiple == 0 ? value : (value + multiple - 1) / multiple * multiple;
}

/* What libjpeg allocates for this decode: a multi-scan file (progressive, non-interleaved, or
   buffered-image mode) keeps every coefficient of the image, 64 JCOEFs (2 bytes each) per
   block, padded to whole MCUs; a single-scan file keeps one iMCU row of them. Each component
   also has its IDCT output rows (three iMCU rows with the context rows fancy upsampling
   needs), and the upsampler and colour converter a few output rows. Plus about 64 KB of
   tables and pools. */
static size_t pa_jpeg_working_memory(j_decompress_ptr c, int whole_image) {
    size_t total = 64 * 1024;
    for (int ci = 0; ci < c->num_components; ci++) {
        jpeg_component_info *comp = &c->comp_info[ci];
        size_t width_blocks = pa_jpeg_round_up(comp->width_in_blocks, (size_t)comp->h_samp_factor);
        size_t height_blocks = pa_jpeg_round_up(comp->height_in_blocks, (size_t)comp->v_samp_factor);
        size_t block_bytes = DCTSIZE2 * sizeof(JCOEF);
        total += width_blocks * (whole_image ? height_blocks : (size_t)comp->v_samp_factor) * block_bytes;
        size_t row_bytes = width_blocks * (size_t)comp->DCT_scaled_size;
        total += row_bytes * (size_t)comp->v_samp_factor * (size_t)comp->DCT_scaled_size * 3;
    }
    total += (size_t)c->output_width * (size_t)c->out_color_components * (size_t)c->max_v_samp_factor * 2;
    /* The own Huffman decoder's tables, for a file it may take (huffman.c). Not counted: a
       damaged file it hands to libjpeg also gets a second decompressor (pa_jpeg_make_shadow),
       about this much again, so such a file may hold up to twice this estimate. */
    if (!c->progressive_mode && !c->arith_code) total += pa_huff_memory();
    return total;
}

int pa_jpeg_prepare(pa_jpeg_decoder *d, unsigned scale_num, unsigned scale_denom, int out_format, int dc_only,
                    pa_jpeg_output *output) {
    if (d->failed) return PA_JPEG_ERROR;
    if (setjmp(d->err.jump)) return pa_jpeg_fail(d);
    j_decompress_ptr c = &d->cinfo;
    c->scale_num = scale_num;
    c->scale_denom = scale_denom;
    switch (out_format) {
    case PA_JPEG_OUT_GRAY: c->out_color_space = JCS_GRAYSCALE; break;
    case PA_JPEG_OUT_CMYK: c->out_color_space = JCS_CMYK; break;
    case PA_JPEG_OUT_PLANES:
        /* No colour converter runs; out_color_space only has to be one libjpeg accepts. */
        c->out_color_space = c->jpeg_color_space;
        c->raw_data_out = TRUE;
        break;
    default: c->out_color_space = JCS_EXT_RGB; break;
    }
    /* What TJFLAG_ACCURATEDCT gave (and libjpeg's default, stated so it cannot drift). */
    c->dct_method = JDCT_ISLOW;
    d->buffered = dc_only && c->progressive_mode;
    c->buffered_image = d->buffered ? TRUE : FALSE;
    jpeg_calc_output_dimensions(c);
    output->width = c->output_width;
    output->height = c->output_height;
    output->components = c->out_color_components;
    output->working_memory = pa_jpeg_working_memory(c, d->buffered || jpeg_has_multiple_scans(c));
    output->dc_only = d->buffered;
    return PA_JPEG_OK;
}

/* True when every coefficient the output pass reads is final (coef_bits 0: its last
   successive-approximation bit is in). A component whose IDCT is 1x1 (1/8 scale, no chroma
   upscaling) reads only its DC; one with a larger IDCT (4:2:0 chroma at 1/8 gets a 2x2 IDCT,
   jdmaster.c scales chroma up by IDCT rather than by upsampling) reads AC too, and then all 64
   are required. coef_bits is updated when a scan starts, so this is asked after a scan has
   completed and before the next one's data is read. */
static int pa_jpeg_needed_coefficients_final(j_decompress_ptr c) {
    if (c->coef_bits == NULL) return 0;
    for (int ci = 0; ci < c->num_components; ci++) {
        int needed = c->comp_info[ci].DCT_scaled_size == 1 ? 1 : DCTSIZE2;
        for (int k = 0; k < needed; k++) {
            if (c->coef_bits[ci][k] != 0) return 0;
        }
    }
    return 1;
}

/* A raw (planar) decode's chroma at its own scale. At N/8 for N = 3, 5, 6 or 7, jdmaster.c gives
   4:2:0 chroma a 2Nx2N IDCT, scaling it up to the luma's size instead of upsampling it later; the
   planes would then reduce it back to 4:2:0 (JPEGPlaneCollector). Those IDCTs are plain C and cost
   more per block than libjpeg's whole luma IDCT: at 6/8 the 12x12 was 18 % of a 3264x2448
   photo's `prepare` (perf), more than the luma's 6x6 (11 %). This runs the luma's NxN IDCT on a
   chroma block instead, chroma decoded at its own N/8 scale, byte for byte what TurboJPEG's
   scaled tjDecompressToYUVPlanes gives (JPEGPlanesTests). Both IDCTs are libjpeg's ISLOW kind
   and read the same dequantisation table (the quantisation values as they are), so the
   chroma's table serves the NxN one.

   Where it writes: the output pass hands it the block's 2Nx2N cell, rows 0..2N-1 of the group
   from `column` = block x 2N. The NxN samples go to the first N of those rows, from column / 2 =
   block x N: each group row then holds the chroma row at its own scale, blocks side by side, in
   its first half (pa_jpeg_plane.own_scale tells the planes to copy it as it is). Blocks are
   decoded left to right and each writes only its own N columns, so no block overwrites
   another's. Writing each sample into a 2x2 square of the cell, for the planes to take the
   mean of each square back, gives the same bytes at four times the writes and a reduce over
   the whole cell (1.5 % of `prepare`). */
static void pa_jpeg_idct_chroma_at_own_scale(j_decompress_ptr cinfo, jpeg_component_info *comp, JCOEFPTR coef,
                                             JSAMPARRAY output, JDIMENSION column) {
    pa_jpeg_decoder *d = pa_jpeg_owner((j_common_ptr)cinfo);
    d->own_scale_idct(cinfo, comp, coef, output, column / 2);
}

/* Whether component `ci` gets pa_jpeg_idct_chroma_at_own_scale (after jpeg_calc_output_dimensions):
   a raw decode at N/8, N = 3, 5, 6 or 7, whose luma (component 0) has the NxN IDCT and this
   component twice that, sampled half the luma's both ways (4:2:0 chroma). Other samplings that get
   a doubled IDCT (h4v2 luma, 1x1 chroma) keep it, and so does a luma sampled below its chroma
   (1x1 luma, 2x2 chroma: component 0 is then the one with the doubled IDCT). N = 1, 2 and 4 keep
   libjpeg's (2x2, 4x4 and 8x8: SIMD or next to free). Only for raw planes: an RGB decode would
   show the missing upsampling. */
static int pa_jpeg_chroma_at_own_scale_applies(const pa_jpeg_decoder *d, int ci) {
    const struct jpeg_decompress_struct *c = &d->cinfo;
    int n = c->min_DCT_scaled_size;
    if (d->own_idct_off || !c->raw_data_out || !(n == 3 || n == 5 || n == 6 || n == 7) || c->num_components < 2) return 0;
    if (ci < 1 || ci >= c->num_components) return 0;
    const jpeg_component_info *luma = &c->comp_info[0], *comp = &c->comp_info[ci];
    return luma->DCT_scaled_size == n && comp->DCT_scaled_size == 2 * n &&
           luma->h_samp_factor == 2 * comp->h_samp_factor && luma->v_samp_factor == 2 * comp->v_samp_factor;
}

inverse_DCT_method_ptr pa_jpeg_libjpeg_idct(j_decompress_ptr cinfo, int n) {
    return pa_jpeg_owner((j_common_ptr)cinfo)->libjpeg_idct[n];
}

/* After the output pass's IDCTs are chosen (as for pa_jpeg_chroma_at_own_scale, and before it,
   which then takes the SIMD one for its chroma): libjpeg's plain-C scaled IDCTs (3x3, 5x5, 6x6,
   7x7) give way to scaled_idct.c's SIMD ones, whose output is the same byte for byte. Any
   output, planes or RGB: they write exactly the NxN samples libjpeg's would. */
static void pa_jpeg_use_simd_idct(pa_jpeg_decoder *d) {
    j_decompress_ptr c = &d->cinfo;
    if (d->own_idct_off || c->data_precision != 8) return;
    for (int ci = 0; ci < c->num_components; ci++) {
        int n = c->comp_info[ci].DCT_scaled_size;
        inverse_DCT_method_ptr simd = pa_scaled_idct(n);
        if (simd == NULL || c->idct->inverse_DCT[ci] == simd) continue;
        d->libjpeg_idct[n] = c->idct->inverse_DCT[ci];
        c->idct->inverse_DCT[ci] = simd;
    }
}

/* After the output pass's IDCTs are chosen (jpeg_start_decompress, or jpeg_start_output in
   buffered-image mode, both run jddctmgr's start_pass): the components
   pa_jpeg_chroma_at_own_scale_applies names get the luma's NxN IDCT at their own scale. */
static void pa_jpeg_chroma_at_own_scale(pa_jpeg_decoder *d) {
    j_decompress_ptr c = &d->cinfo;
    d->own_scale_idct = c->idct->inverse_DCT[0];
    for (int ci = 1; ci < c->num_components; ci++) {
        if (pa_jpeg_chroma_at_own_scale_applies(d, ci)) c->idct->inverse_DCT[ci] = pa_jpeg_idct_chroma_at_own_scale;
    }
}

/* The shadow of `d` (see pa_jpeg_decoder.huff): a decompressor over the same bytes, set up as d
   was (scale, output, so the same components and coefficients are needed), started, its
   entropy decoder at the scan's first MCU. NULL, with d->error set, if it cannot be made. */
static pa_jpeg_decoder *pa_jpeg_make_shadow(pa_jpeg_decoder *d) {
    pa_jpeg_decoder *s = pa_jpeg_create(d->data, d->length, d->strict);
    if (s == NULL) {
        snprintf(d->error, sizeof d->error, "cannot create a decompressor: out of memory");
        return NULL;
    }
    s->own_huffman_off = 1;
    if (s->failed || setjmp(s->err.jump)) {
        memcpy(d->error, s->error, sizeof d->error);
        pa_jpeg_destroy(s);
        return NULL;
    }
    j_decompress_ptr c = &s->cinfo, m = &d->cinfo;
    (void)jpeg_read_header(c, TRUE);
    c->scale_num = m->scale_num;
    c->scale_denom = m->scale_denom;
    c->out_color_space = m->out_color_space;
    c->raw_data_out = m->raw_data_out;
    c->dct_method = m->dct_method;
    c->buffered_image = FALSE;
    (void)jpeg_start_decompress(c);
    /* Its decode_mcu is called from d's entry points: no progress monitor of its own, whose scan
       check would jump to this function's frame. */
    c->progress = NULL;
    int same = c->blocks_in_MCU == m->blocks_in_MCU && c->comps_in_scan == m->comps_in_scan;
    for (int ci = 0; same && ci < c->num_components; ci++) {
        const jpeg_component_info *a = &c->comp_info[ci], *b = &m->comp_info[ci];
        same = a->component_needed == b->component_needed && a->DCT_scaled_size == b->DCT_scaled_size &&
               a->dc_tbl_no == b->dc_tbl_no && a->ac_tbl_no == b->ac_tbl_no;
    }
    if (!same) {
        snprintf(d->error, sizeof d->error, "libjpeg set the scan up differently the second time");
        pa_jpeg_destroy(s);
        return NULL;
    }
    return s;
}

/* What jpeg_finish_decompress reads after the scan: where the shadow's decoder left the input. */
static void pa_jpeg_take_input_state(pa_jpeg_decoder *d) {
    j_decompress_ptr c = &d->cinfo, s = &d->shadow->cinfo;
    c->src->next_input_byte = s->src->next_input_byte;
    c->src->bytes_in_buffer = s->src->bytes_in_buffer;
    c->unread_marker = s->unread_marker;
    c->marker->next_restart_num = s->marker->next_restart_num;
    c->marker->discarded_bytes = s->marker->discarded_bytes;
    c->entropy->insufficient_data = s->entropy->insufficient_data;
}

/* The scan's decode_mcu while the own decoder runs (pa_jpeg_start installs it): huffman.c's
   decoder, and once it meets what it does not take, libjpeg's in a shadow decompressor, first
   through the MCUs already decoded (discarded: the same coefficients, as nothing before was
   anything libjpeg treats specially) and from then on for every MCU. The shadow's warnings are
   libjpeg's for this file, as if it had decoded it all, and its errors end this decode. */
/* The hand-over: the shadow made, its decoder run through the MCUs the own one decoded, and the
   current MCU's blocks zeroed again, as the coefficient controller hands them over. */
static void pa_jpeg_hand_over(pa_jpeg_decoder *d, JBLOCKROW *MCU_data) {
    pa_jpeg_decoder *s = pa_jpeg_make_shadow(d);
    if (s == NULL) longjmp(d->err.jump, 1);
    s->forward = d;
    d->shadow = s;
    JBLOCK scratch[D_MAX_BLOCKS_IN_MCU];
    JBLOCKROW rows[D_MAX_BLOCKS_IN_MCU];
    for (int b = 0; b < D_MAX_BLOCKS_IN_MCU; b++) rows[b] = &scratch[b];
    for (unsigned long i = 0; i < pa_huff_mcus_done(d->huff); i++) {
        memset(scratch, 0, sizeof scratch);
        if (!s->cinfo.entropy->decode_mcu(&s->cinfo, rows)) {
            snprintf(d->error, sizeof d->error, "libjpeg suspended on an in-memory source");
            longjmp(d->err.jump, 1);
        }
    }
    if (MCU_data) {
        for (int b = 0; b < d->cinfo.blocks_in_MCU; b++) memset(MCU_data[b], 0, sizeof(JBLOCK));
    }
}

static boolean pa_jpeg_decode_mcu(j_decompress_ptr cinfo, JBLOCKROW *MCU_data) {
    pa_jpeg_decoder *d = pa_jpeg_owner((j_common_ptr)cinfo);
    if (d->shadow == NULL) {
        if (pa_huff_decode_mcu(d->huff, cinfo, MCU_data)) return TRUE;
        pa_jpeg_hand_over(d, MCU_data);
    }
    boolean done = d->shadow->cinfo.entropy->decode_mcu(&d->shadow->cinfo, MCU_data);
    pa_jpeg_take_input_state(d);
    return done;
}

/* Before the scan's first MCU: huffman.c's decoder as the entropy decoder's decode_mcu, for a
   scan it takes (pa_huff_create). */
static void pa_jpeg_use_own_huffman(pa_jpeg_decoder *d) {
    j_decompress_ptr c = &d->cinfo;
    if (d->own_huffman_off || d->buffered || c->entropy == NULL) return;
    d->huff = pa_huff_create(c);
    if (d->huff != NULL) c->entropy->decode_mcu = pa_jpeg_decode_mcu;
}

void pa_jpeg_set_own_huffman(pa_jpeg_decoder *d, int enabled) { d->own_huffman_off = !enabled; }

void pa_jpeg_set_own_idct(pa_jpeg_decoder *d, int enabled) { d->own_idct_off = !enabled; }

int pa_jpeg_own_huffman(const pa_jpeg_decoder *d) { return d->huff == NULL ? 0 : d->shadow == NULL ? 1 : 2; }

int pa_jpeg_start(pa_jpeg_decoder *d) {
    if (d->failed) return PA_JPEG_ERROR;
    if (setjmp(d->err.jump)) return pa_jpeg_fail(d);
    j_decompress_ptr c = &d->cinfo;
    /* Not buffered: a multi-scan file is read whole here (the progress monitor counts scans). */
    (void)jpeg_start_decompress(c);
    if (d->buffered) {
        int ready = 0;
        for (;;) {
            int status = jpeg_consume_input(c);
            pa_jpeg_check_scans(d);
            if (status == JPEG_REACHED_EOI) break;
            if (status == JPEG_SUSPENDED) {
                /* jpeg_mem_src inserts a fake EOI at the end instead of suspending. */
                snprintf(d->error, sizeof d->error, "libjpeg suspended on an in-memory source");
                return pa_jpeg_fail(d);
            }
            if (status == JPEG_REACHED_SOS && ready) {
                d->stopped_early = 1;
                d->stop_offset = (size_t)(c->src->next_input_byte - d->data);
                break;
            }
            if (status == JPEG_SCAN_COMPLETED) ready = pa_jpeg_needed_coefficients_final(c);
        }
        /* Block smoothing guesses coefficients not yet received, and with no AC data at all it
           also moves the DC (libjpeg-turbo 2.1's change_dc): after an early stop that would
           invent values the full decode never shows. Once at the end, libjpeg decides as in a
           plain decode. */
        c->do_block_smoothing = d->stopped_early ? FALSE : TRUE;
        /* After an early stop the input sits at the next scan's header: output as of the scan
           before it, so the output pass never pulls that scan's data in. */
        (void)jpeg_start_output(c, d->stopped_early ? c->input_scan_number - 1 : c->input_scan_number);
    }
    pa_jpeg_use_simd_idct(d);
    pa_jpeg_chroma_at_own_scale(d);
    pa_jpeg_use_own_huffman(d);
    d->started = 1;
    return PA_JPEG_OK;
}

int pa_jpeg_read_rows(pa_jpeg_decoder *d, unsigned char *rows, size_t stride, unsigned count,
                      unsigned *rows_read) {
    *rows_read = 0;
    if (d->failed) return PA_JPEG_ERROR;
    d->rows_done = 0;
    if (setjmp(d->err.jump)) return pa_jpeg_fail(d);
    j_decompress_ptr c = &d->cinfo;
    while (d->rows_done < count && c->output_scanline < c->output_height) {
        JSAMPROW pointers[16];
        unsigned want = count - d->rows_done;
        if (want > 16) want = 16;
        for (unsigned i = 0; i < want; i++) pointers[i] = rows + (size_t)(d->rows_done + i) * stride;
        JDIMENSION got = jpeg_read_scanlines(c, pointers, want);
        if (got == 0) break; /* only a suspending source returns 0 */
        d->rows_done += got;
    }
    *rows_read = d->rows_done;
    return PA_JPEG_OK;
}

int pa_jpeg_plane_geometry(const pa_jpeg_decoder *d, int component, pa_jpeg_plane *plane) {
    const struct jpeg_decompress_struct *c = &d->cinfo;
    memset(plane, 0, sizeof *plane);
    if (d->failed || !c->raw_data_out || component < 0 || component >= c->num_components) return PA_JPEG_ERROR;
    const jpeg_component_info *comp = &c->comp_info[component];
    plane->width = comp->downsampled_width;
    plane->height = comp->downsampled_height;
    plane->padded_width = comp->width_in_blocks * (unsigned)comp->DCT_scaled_size;
    plane->rows_per_group = (unsigned)(comp->v_samp_factor * comp->DCT_scaled_size);
    plane->h_samp_factor = comp->h_samp_factor;
    plane->v_samp_factor = comp->v_samp_factor;
    plane->own_scale = pa_jpeg_chroma_at_own_scale_applies(d, component);
    return PA_JPEG_OK;
}

int pa_jpeg_read_planes(pa_jpeg_decoder *d, unsigned char **rows, unsigned *lines_read) {
    *lines_read = 0;
    if (d->failed) return PA_JPEG_ERROR;
    if (setjmp(d->err.jump)) return pa_jpeg_fail(d);
    j_decompress_ptr c = &d->cinfo;
    if (!c->raw_data_out || c->num_components > MAX_COMPONENTS) {
        snprintf(d->error, sizeof d->error, "pa_jpeg_read_planes needs a PA_JPEG_OUT_PLANES decode");
        return pa_jpeg_fail(d);
    }
    if (c->output_scanline >= c->output_height) return PA_JPEG_OK;
    JSAMPARRAY planes[MAX_COMPONENTS];
    size_t offset = 0;
    for (int ci = 0; ci < c->num_components; ci++) {
        planes[ci] = (JSAMPARRAY)(rows + offset);
        offset += (size_t)(c->comp_info[ci].v_samp_factor * c->comp_info[ci].DCT_scaled_size);
    }
    JDIMENSION lines = (JDIMENSION)(c->max_v_samp_factor * c->min_DCT_scaled_size);
    *lines_read = jpeg_read_raw_data(c, planes, lines);
    return PA_JPEG_OK;
}

int pa_jpeg_finish(pa_jpeg_decoder *d) {
    if (d->failed) return PA_JPEG_ERROR;
    if (d->finished) return PA_JPEG_OK;
    if (setjmp(d->err.jump)) return pa_jpeg_fail(d);
    j_decompress_ptr c = &d->cinfo;
    if (d->buffered && d->stopped_early) {
        jpeg_abort_decompress(c);
    } else {
        if (d->buffered) (void)jpeg_finish_output(c);
        (void)jpeg_finish_decompress(c);
    }
    d->finished = 1;
    return PA_JPEG_OK;
}

int pa_jpeg_stopped_early(const pa_jpeg_decoder *d) { return d->stopped_early; }

size_t pa_jpeg_stop_offset(const pa_jpeg_decoder *d) { return d->stop_offset; }

unsigned pa_jpeg_output_scanline(const pa_jpeg_decoder *d) { return d->cinfo.output_scanline; }

const char *pa_jpeg_error_message(const pa_jpeg_decoder *d) { return d->error; }

unsigned long pa_jpeg_warning_count(const pa_jpeg_decoder *d) { return d->warning_count; }

unsigned pa_jpeg_warning_messages(const pa_jpeg_decoder *d) { return d->warnings_kept; }

const char *pa_jpeg_warning_message(const pa_jpeg_decoder *d, unsigned index) {
    return index < d->warnings_kept ? d->warnings[index] : "";
}

int pa_jpeg_compare_idct(pa_jpeg_decoder *d, int component, const short *coefficients, const short *quant,
                         unsigned char *simd, unsigned char *libjpeg) {
    j_decompress_ptr c = &d->cinfo;
    if (!d->started || d->failed || component < 0 || component >= c->num_components) return 0;
    int n = c->comp_info[component].DCT_scaled_size;
    if (pa_scaled_idct(n) == NULL || d->libjpeg_idct[n] == NULL) return 0;
    /* The component with the given table, in the ISLOW layout both functions read. */
    jpeg_component_info comp = c->comp_info[component];
#ifdef WITH_SIMD
    short table[DCTSIZE2];
#else
    int table[DCTSIZE2];
#endif
    for (int i = 0; i < DCTSIZE2; i++) table[i] = quant[i];
    comp.dct_table = table;
    JCOEF block[DCTSIZE2];
    memcpy(block, coefficients, sizeof block);
    JSAMPROW simd_rows[DCTSIZE], libjpeg_rows[DCTSIZE];
    for (int r = 0; r < DCTSIZE; r++) {
        simd_rows[r] = simd + r * DCTSIZE;
        libjpeg_rows[r] = libjpeg + r * DCTSIZE;
    }
    pa_scaled_idct(n)(c, &comp, block, simd_rows, 0);
    d->libjpeg_idct[n](c, &comp, block, libjpeg_rows, 0);
    return n;
}

/* The variants libjpeg names as ones it does not decode, by message code (never by its words):
   a data precision other than 8 (JERR_BAD_PRECISION), a process it lacks (lossless, hierarchical:
   JERR_SOF_UNSUPPORTED), a colour conversion it has no path for, a DNL marker (JERR_EMPTY_IMAGE). */
int pa_jpeg_error_is_unsupported(const pa_jpeg_decoder *decoder) {
    switch (decoder->error_code) {
    case JERR_BAD_PRECISION:
    case JERR_SOF_UNSUPPORTED:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_EMPTY_IMAGE: return 1;
    default: return 0;
    }
}

/* The warnings that leave the pixels as encoded, by message code: an unknown JFIF revision, an
   unknown Adobe transform code (the colours may be off), a bad ICC marker, SOS parameters a
   sequential file ignores anyway, and junk bytes skipped before a marker (the decoder had
   finished what came before). Every other warning means pixels made up: a bad Huffman code, a
   premature end, a resync at a restart marker, an inconsistent progression. */
int pa_jpeg_warning_is_metadata(const pa_jpeg_decoder *decoder, unsigned index) {
    if (index >= decoder->warnings_kept) return 0;
    switch (decoder->warning_codes[index]) {
    case JWRN_JFIF_MAJOR:
    case JWRN_ADOBE_XFORM:
    case JWRN_BOGUS_ICC:
    case JWRN_NOT_SEQUENTIAL:
    case JWRN_EXTRANEOUS_DATA: return 1;
    default: return 0;
    }
}
