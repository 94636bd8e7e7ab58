/* libpng's sequential read API behind setjmp; see include/CPNGShim.h. C11. */
#include "CPNGShim.h"

#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "fast.h"

struct pa_png_decoder {
    png_structp png;
    png_infop info;
    /* The input, read in place by pa_png_read. */
    const uint8_t *data;
    size_t length;
    size_t position;
    /* 1 after png_error: libpng's state is undefined, every later call fails at once. */
    int failed;
    int started;
    int passes;
    uint32_t height;
    uint32_t rows_read;
    /* Bits per pixel in the file (bit depth x channels), for the working-memory estimate. */
    size_t source_pixel_bits;
    /* What IHDR says, as read (png_read_update_info later gives the transformed layout). */
    int source_bit_depth;
    int source_colour_type;
    /* fast.c's reader while it gives the rows (pa_png_decoder_start made it); NULL otherwise. */
    pa_png_fast *fast;
    int fast_off;   /* pa_png_decoder_set_fast(d, 0) */
    int fast_state; /* 0 libpng throughout, 1 the fast reader, 2 handed over to libpng */
    size_t row_bytes;
    char error[PA_PNG_MESSAGE_BYTES];
    size_t warning_count;
    size_t warnings_dropped;
    char warnings[PA_PNG_MAX_WARNINGS][PA_PNG_MESSAGE_BYTES];
};

static void pa_png_copy_message(char *destination, const char *message) {
    if (message == NULL) message = "(no message)";
    size_t n = strlen(message);
    if (n >= PA_PNG_MESSAGE_BYTES) n = PA_PNG_MESSAGE_BYTES - 1;
    memcpy(destination, message, n);
    destination[n] = '\0';
}

/* png_error's callback: keep the message, then jump back to the entry point's setjmp. */
static void pa_png_on_error(png_structp png, png_const_charp message) {
    pa_png_decoder *decoder = png_get_error_ptr(png);
    if (decoder != NULL) pa_png_copy_message(decoder->error, message);
    png_longjmp(png, 1);
}

static void pa_png_on_warning(png_structp png, png_const_charp message) {
    pa_png_decoder *decoder = png_get_error_ptr(png);
    if (decoder == NULL) return;
    if (decoder->warning_count < PA_PNG_MAX_WARNINGS) {
        pa_png_copy_message(decoder->warnings[decoder->warning_count], message);
        decoder->warning_count += 1;
    } else {
        decoder->warnings_dropped += 1;
    }
}

/* png_set_read_fn's callback: copies from the in-memory input; running out is an error, the
   same words as the simplified API's memory reader. */
static void pa_png_read(png_structp png, png_bytep out, size_t need) {
    pa_png_decoder *decoder = png_get_io_ptr(png);
    if (decoder == NULL || decoder->length - decoder->position < need) {
        png_error(png, "read beyond end of data");
        return;
    }
    memcpy(out, decoder->data + decoder->position, need);
    decoder->position += need;
}

pa_png_decoder *pa_png_decoder_create(const uint8_t *data, size_t length, const pa_png_limits *limits) {
    pa_png_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->data = data;
    decoder->length = data == NULL ? 0 : length;
    decoder->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, decoder, pa_png_on_error, pa_png_on_warning);
    if (decoder->png == NULL) {
        free(decoder);
        return NULL;
    }
    decoder->info = png_create_info_struct(decoder->png);
    if (decoder->info == NULL) {
        png_destroy_read_struct(&decoder->png, NULL, NULL);
        free(decoder);
        return NULL;
    }
    /* None of these calls png_error. */
    png_set_read_fn(decoder->png, decoder, pa_png_read);
    if (limits != NULL) {
        png_set_user_limits(decoder->png, limits->max_width, limits->max_height);
        png_set_chunk_malloc_max(decoder->png, limits->max_chunk_bytes);
    }
    /* As the simplified API: benign errors (a bad ancillary chunk) are warnings. */
    png_set_benign_errors(decoder->png, 1);
    /* The Swift chunk walk has already checked the CRC of every critical chunk and refused the
       file on a mismatch, so libpng need not compute them again (IDAT is most of the file).
       Ancillary chunks keep libpng's default: a bad CRC is warned about and the chunk dropped,
       as before. zlib's Adler-32 check of the image data stays on. */
    png_set_crc_action(decoder->png, PNG_CRC_QUIET_USE, PNG_CRC_DEFAULT);
    /* Text chunks are never needed here (XMP is read by the Swift chunk walk), and libpng keeps
       every one it reads until the decoder is destroyed: up to 1,000 zTXt/iTXt chunks, each
       inflated to as much as the chunk limit, a decompression bomb of gigabytes from a small
       file. Skipped unread. */
    static const png_byte text[] = {
        116, 69, 88, 116, '\0',  /* tEXt */
        122, 84, 88, 116, '\0',  /* zTXt */
        105, 84, 88, 116, '\0',  /* iTXt */
    };
    png_set_keep_unknown_chunks(decoder->png, PNG_HANDLE_CHUNK_NEVER, text, (int)(sizeof text / 5));
    return decoder;
}

void pa_png_decoder_destroy(pa_png_decoder *decoder) {
    if (decoder == NULL) return;
    pa_png_fast_destroy(decoder->fast);
    png_destroy_read_struct(&decoder->png, &decoder->info, NULL);
    free(decoder);
}

int pa_png_decoder_read_header(pa_png_decoder *decoder, pa_png_header *header) {
    if (decoder->failed) return -1;
    if (setjmp(png_jmpbuf(decoder->png))) {
        decoder->failed = 1;
        return -1;
    }
    png_read_info(decoder->png, decoder->info);
    header->width = png_get_image_width(decoder->png, decoder->info);
    header->height = png_get_image_height(decoder->png, decoder->info);
    header->bit_depth = png_get_bit_depth(decoder->png, decoder->info);
    header->color_type = png_get_color_type(decoder->png, decoder->info);
    header->interlaced = png_get_interlace_type(decoder->png, decoder->info) != PNG_INTERLACE_NONE;
    int transparent = 0;
    if (png_get_valid(decoder->png, decoder->info, PNG_INFO_tRNS)) {
        png_bytep alphas = NULL;
        png_color_16p colour = NULL;
        png_get_tRNS(decoder->png, decoder->info, &alphas, &transparent, &colour);
    }
    header->has_trns = transparent > 0;
    decoder->height = header->height;
    decoder->source_pixel_bits = (size_t)header->bit_depth * png_get_channels(decoder->png, decoder->info);
    decoder->source_bit_depth = header->bit_depth;
    decoder->source_colour_type = header->color_type;
    return 0;
}

/* libpng's choice, in png_init_read_transformations, to convert the file's gamma for the sRGB
   output pa_png_decoder_start asks for: only when the file states a gamma (gAMA, or sRGB's) whose
   product with the screen's 2.2 is more than 5 % from 1 (png_gamma_threshold, with
   png_product2's rounding). */
static int pa_png_gamma_converted(png_structp png, png_infop info) {
    png_fixed_point file_gamma = 0;
    if (!png_get_gAMA_fixed(png, info, &file_gamma) || file_gamma == 0) return 0;
    double product = floor((double)PNG_GAMMA_sRGB * 1E-5 * (double)file_gamma + .5);
    return product < PNG_FP_1 - 5000 || product > PNG_FP_1 + 5000;
}

/* After png_read_update_info: fast.c's reader for a file it takes, its rows libpng's by
   definition (8-bit grey, RGB, grey+alpha or RGBA, not interlaced, no tRNS, no gamma converted,
   so no transform changes a byte but grey+alpha's spread to RGBA), positioned at the first IDAT
   chunk, which png_read_info has just read the length and type of. */
static void pa_png_decoder_try_fast(pa_png_decoder *decoder, int out_channels) {
    png_structp png = decoder->png;
    png_infop meta = decoder->info;
    if (decoder->fast_off || decoder->passes != 1 || decoder->source_bit_depth != 8 ||
        png_get_valid(png, meta, PNG_INFO_tRNS) || pa_png_gamma_converted(png, meta) || decoder->position < 8)
        return;
    decoder->fast = pa_png_fast_create(decoder->data, decoder->length, decoder->position - 8,
                                       png_get_image_width(png, meta), decoder->height, decoder->source_colour_type,
                                       out_channels);
    if (decoder->fast != NULL) decoder->fast_state = 1;
}

int pa_png_decoder_start(pa_png_decoder *decoder, pa_png_output output, pa_png_output_info *info) {
    if (decoder->failed) return -1;
    if (decoder->started) {
        pa_png_copy_message(decoder->error, "pa_png_decoder_start called twice");
        decoder->failed = 1;
        return -1;
    }
    if (setjmp(png_jmpbuf(decoder->png))) {
        decoder->failed = 1;
        return -1;
    }
    png_structp png = decoder->png;
    png_infop meta = decoder->info;
    int colour_type = png_get_color_type(png, meta);
    /* The calls of png_image_read_direct (libpng 1.6 pngread.c), in its order, for 8-bit
       output with no background, so the pixels are the ones the simplified API gave. */
    png_set_expand(png); /* palette to RGB, grey 1/2/4 to 8 bits, tRNS to alpha */
    if (output != PA_PNG_OUTPUT_GRAY && (colour_type & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(png);
    /* A file without gAMA/sRGB/iCCP is taken as sRGB, 16-bit ones too (the simplified API's
       PNG_IMAGE_FLAG_16BIT_sRGB); the output is sRGB: a gAMA other than 1/2.2 is converted. */
    png_set_alpha_mode_fixed(png, PNG_ALPHA_PNG, PNG_DEFAULT_sRGB);
    if (png_get_bit_depth(png, meta) == 16) png_set_scale_16(png);
    png_set_alpha_mode_fixed(png, PNG_ALPHA_PNG, PNG_DEFAULT_sRGB);
    /* Nothing after IDAT is needed: skip every chunk but the ones that change pixels. */
    static const png_byte keep[] = {
        98, 75, 71, 68, '\0',   /* bKGD */
        99, 72, 82, 77, '\0',   /* cHRM */
        103, 65, 77, 65, '\0',  /* gAMA */
        105, 67, 67, 80, '\0',  /* iCCP */
        115, 66, 73, 84, '\0',  /* sBIT */
        115, 82, 71, 66, '\0',  /* sRGB */
    };
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_AS_DEFAULT, keep, (int)(sizeof keep / 5));
    decoder->passes = png_set_interlace_handling(png);
    png_read_update_info(png, meta);

    int channels = png_get_channels(png, meta);
    if (png_get_bit_depth(png, meta) != 8 || channels != (int)output) {
        png_error(png, "png_read_update_info gave an unexpected layout");
    }
    info->row_bytes = png_get_rowbytes(png, meta);
    info->passes = decoder->passes;
    /* libpng's row_buf and prev_row, each one row at the widest pixel it decodes (the source's,
       or the transformed one) plus the filter byte. */
    size_t width = png_get_image_width(png, meta);
    size_t source_bytes = (width * decoder->source_pixel_bits + 7) / 8;
    size_t widest = info->row_bytes > source_bytes ? info->row_bytes : source_bytes;
    info->internal_row_bytes = 2 * (widest + 1);
    decoder->row_bytes = info->row_bytes;
    pa_png_decoder_try_fast(decoder, channels);
    if (decoder->fast != NULL) info->internal_row_bytes += pa_png_fast_memory((uint32_t)width, channels);
    decoder->started = 1;
    return 0;
}

/* The hand-over from the fast reader: libpng reads the `rows` rows already handed out again, into
   a row of scratch, so that it goes on from there as if it had read them all. */
static int pa_png_decoder_replay(pa_png_decoder *decoder, uint32_t rows) {
    pa_png_fast_destroy(decoder->fast);
    decoder->fast = NULL;
    decoder->fast_state = 2;
    if (rows == 0) return 0;
    png_bytep scratch = malloc(decoder->row_bytes);
    if (scratch == NULL) {
        pa_png_copy_message(decoder->error, "out of memory");
        decoder->failed = 1;
        return -1;
    }
    if (setjmp(png_jmpbuf(decoder->png))) {
        free(scratch);
        decoder->failed = 1;
        return -1;
    }
    for (uint32_t i = 0; i < rows; i += 1) png_read_row(decoder->png, scratch, NULL);
    free(scratch);
    return 0;
}

int pa_png_decoder_read_rows(pa_png_decoder *decoder, uint8_t *buffer, size_t stride, uint32_t count) {
    if (decoder->failed) return -1;
    if (!decoder->started || decoder->passes != 1 || count > decoder->height - decoder->rows_read) {
        pa_png_copy_message(decoder->error, "pa_png_decoder_read_rows: not started, interlaced, or past the end");
        decoder->failed = 1;
        return -1;
    }
    if (decoder->fast != NULL) {
        /* The fast reader's rows, unless it stops short or, at the last row, the image data does
           not end cleanly: then libpng reads this call's rows itself (and says what it finds). */
        uint32_t got = pa_png_fast_read_rows(decoder->fast, buffer, stride, count);
        int last = decoder->rows_read + got == decoder->height;
        if (got == count && (!last || pa_png_fast_finished_cleanly(decoder->fast))) {
            decoder->rows_read += got;
            return 0;
        }
        if (pa_png_decoder_replay(decoder, decoder->rows_read) != 0) return -1;
    }
    if (setjmp(png_jmpbuf(decoder->png))) {
        decoder->failed = 1;
        return -1;
    }
    for (uint32_t i = 0; i < count; i += 1) {
        png_read_row(decoder->png, buffer + (size_t)i * stride, NULL);
        decoder->rows_read += 1;
    }
    return 0;
}

void pa_png_decoder_set_fast(pa_png_decoder *decoder, int enabled) { decoder->fast_off = !enabled; }

int pa_png_decoder_fast_state(const pa_png_decoder *decoder) { return decoder->fast_state; }

int pa_png_decoder_read_image(pa_png_decoder *decoder, uint8_t *buffer, size_t stride) {
    if (decoder->failed) return -1;
    if (!decoder->started || decoder->rows_read != 0) {
        pa_png_copy_message(decoder->error, "pa_png_decoder_read_image: not started, or rows already read");
        decoder->failed = 1;
        return -1;
    }
    if (setjmp(png_jmpbuf(decoder->png))) {
        decoder->failed = 1;
        return -1;
    }
    /* Each pass visits every row; libpng skips the rows a pass has no pixels in and writes
       only the pass's own pixels into the others. */
    for (int pass = 0; pass < decoder->passes; pass += 1) {
        for (uint32_t y = 0; y < decoder->height; y += 1) {
            png_read_row(decoder->png, buffer + (size_t)y * stride, NULL);
        }
    }
    decoder->rows_read = decoder->height;
    return 0;
}

uint32_t pa_png_decoder_rows_read(const pa_png_decoder *decoder) { return decoder->rows_read; }

const char *pa_png_decoder_error(const pa_png_decoder *decoder) { return decoder->error; }

size_t pa_png_decoder_warning_count(const pa_png_decoder *decoder) { return decoder->warning_count; }

size_t pa_png_decoder_warnings_dropped(const pa_png_decoder *decoder) { return decoder->warnings_dropped; }

const char *pa_png_decoder_warning(const pa_png_decoder *decoder, size_t index) {
    return index < decoder->warning_count ? decoder->warnings[index] : "";
}
