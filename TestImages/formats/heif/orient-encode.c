/* orient-encode: encodes an 8-bit RGB or RGBA PNG as HEIC (x265) or AVIF (aom) through libheif,
 * with an orientation written as irot/imir properties (heif_encoding_options.image_orientation,
 * libheif >= 1.14). The PNG holds the pixels as STORED; a decoder that applies irot/imir shows
 * them turned by ORIENTATION (Exif numbering, 1..8). Used only to make the test fixtures in this
 * folder (see make-fixtures.sh); it is not part of the product.
 *
 *   cc -O2 orient-encode.c -o orient-encode $(pkg-config --cflags --libs libheif libpng)
 *   orient-encode in.png out.heic|out.avif BITS(8|10) ORIENTATION(1..8) QUALITY(0..100)
 */
#include <libheif/heif.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char* what, struct heif_error e) {
    fprintf(stderr, "orient-encode: %s: %s\n", what, e.message);
    return 1;
}

int main(int argc, char** argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s in.png out.heic|out.avif bits orientation quality\n", argv[0]);
        return 64;
    }
    const char* out = argv[2];
    int bits = atoi(argv[3]), orientation = atoi(argv[4]), quality = atoi(argv[5]);
    size_t n = strlen(out);
    int avif = n > 5 && strcmp(out + n - 5, ".avif") == 0;
    if ((bits != 8 && bits != 10) || orientation < 1 || orientation > 8) return 64;

    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&png, argv[1])) {
        fprintf(stderr, "orient-encode: %s: %s\n", argv[1], png.message);
        return 1;
    }
    int alpha = (png.format & PNG_FORMAT_FLAG_ALPHA) != 0;
    png.format = alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    int channels = alpha ? 4 : 3;
    int width = (int)png.width, height = (int)png.height;
    unsigned char* pixels = malloc((size_t)width * height * channels);
    if (!pixels || !png_image_finish_read(&png, NULL, pixels, 0, NULL)) {
        fprintf(stderr, "orient-encode: %s: %s\n", argv[1], png.message);
        return 1;
    }

    struct heif_image* image = NULL;
    enum heif_chroma chroma = bits == 8 ? (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
                                        : (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE);
    struct heif_error e = heif_image_create(width, height, heif_colorspace_RGB, chroma, &image);
    if (e.code) return fail("heif_image_create", e);
    e = heif_image_add_plane(image, heif_channel_interleaved, width, height, bits);
    if (e.code) return fail("heif_image_add_plane", e);
    int stride = 0;
    uint8_t* plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    for (int y = 0; y < height; y++) {
        const unsigned char* src = pixels + (size_t)y * width * channels;
        uint8_t* dst = plane + (size_t)y * stride;
        for (int i = 0; i < width * channels; i++) {
            if (bits == 8) {
                dst[i] = src[i];
            } else { /* 8 -> 10 bits, little endian: v * 1023 / 255, rounded */
                unsigned v = (src[i] * 1023u + 127u) / 255u;
                dst[2 * i] = (uint8_t)(v & 0xFF);
                dst[2 * i + 1] = (uint8_t)(v >> 8);
            }
        }
    }

    struct heif_context* ctx = heif_context_alloc();
    struct heif_encoder* encoder = NULL;
    e = heif_context_get_encoder_for_format(ctx, avif ? heif_compression_AV1 : heif_compression_HEVC, &encoder);
    if (e.code) return fail("heif_context_get_encoder_for_format", e);
    heif_encoder_set_lossy_quality(encoder, quality);
    if (avif) heif_encoder_set_parameter_integer(encoder, "speed", 6);
    struct heif_encoding_options* options = heif_encoding_options_alloc();
    options->image_orientation = (enum heif_orientation)orientation;
    e = heif_context_encode_image(ctx, image, encoder, options, NULL);
    if (e.code) return fail("heif_context_encode_image", e);
    e = heif_context_write_to_file(ctx, out);
    if (e.code) return fail("heif_context_write_to_file", e);
    heif_encoding_options_free(options);
    heif_encoder_release(encoder);
    heif_image_release(image);
    heif_context_free(ctx);
    free(pixels);
    return 0;
}
