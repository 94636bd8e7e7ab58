/* flat-encode: encodes a flat (one-value) image of any size as HEIC (x265) or AVIF (aom) through
 * libheif, 4:2:0 or monochrome (4:0:0). A flat picture compresses to a few hundred bytes at any
 * size, which makes small fixtures for coded-size checks (see make-size-fixtures.sh). Used only to
 * make test fixtures; it is not part of the product.
 *
 *   cc -O2 flat-encode.c -o flat-encode $(pkg-config --cflags --libs libheif)
 *   flat-encode out.heic|out.avif WIDTH HEIGHT [Y [mono]]     (Y: the luma value, default 128)
 *
 * A monochrome file is written as limited range (nclx full_range_flag 0), its luma as given.
 */
#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char* what, struct heif_error e) {
    fprintf(stderr, "flat-encode: %s: %s\n", what, e.message);
    return 1;
}

int main(int argc, char** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s out.heic|out.avif width height [Y [mono]]\n", argv[0]);
        return 64;
    }
    const char* out = argv[1];
    int width = atoi(argv[2]), height = atoi(argv[3]);
    int luma = argc > 4 ? atoi(argv[4]) : 128;
    int mono = argc > 5 && strcmp(argv[5], "mono") == 0;
    size_t n = strlen(out);
    int avif = n > 5 && strcmp(out + n - 5, ".avif") == 0;

    struct heif_image* image = NULL;
    struct heif_error e = heif_image_create(width, height, mono ? heif_colorspace_monochrome : heif_colorspace_YCbCr,
                                            mono ? heif_chroma_monochrome : heif_chroma_420, &image);
    if (e.code) return fail("heif_image_create", e);
    enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    for (int c = 0; c < (mono ? 1 : 3); c++) {
        int w = c == 0 ? width : (width + 1) / 2, h = c == 0 ? height : (height + 1) / 2;
        e = heif_image_add_plane(image, channels[c], w, h, 8);
        if (e.code) return fail("heif_image_add_plane", e);
        int stride = 0;
        uint8_t* plane = heif_image_get_plane(image, channels[c], &stride);
        for (int y = 0; y < h; y++) memset(plane + (size_t)y * stride, c == 0 ? luma : 128, w);
    }
    if (mono) {
        struct heif_color_profile_nclx* nclx = heif_nclx_color_profile_alloc();
        nclx->color_primaries = heif_color_primaries_ITU_R_BT_709_5;
        nclx->transfer_characteristics = heif_transfer_characteristic_ITU_R_BT_709_5;
        nclx->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6;
        nclx->full_range_flag = 0;
        e = heif_image_set_nclx_color_profile(image, nclx);
        heif_nclx_color_profile_free(nclx);
        if (e.code) return fail("heif_image_set_nclx_color_profile", e);
    }

    struct heif_context* ctx = heif_context_alloc();
    struct heif_encoder* encoder = NULL;
    e = heif_context_get_encoder_for_format(ctx, avif ? heif_compression_AV1 : heif_compression_HEVC, &encoder);
    if (e.code) return fail("heif_context_get_encoder_for_format", e);
    heif_encoder_set_lossy_quality(encoder, 50);
    if (avif) heif_encoder_set_parameter_integer(encoder, "speed", 9);
    else heif_encoder_set_parameter_string(encoder, "preset", "ultrafast");
    struct heif_encoding_options* options = heif_encoding_options_alloc();
    options->save_two_colr_boxes_when_ICC_and_nclx_available = 0;
    e = heif_context_encode_image(ctx, image, encoder, options, NULL);
    if (e.code) return fail("heif_context_encode_image", e);
    e = heif_context_write_to_file(ctx, out);
    if (e.code) return fail("heif_context_write_to_file", e);
    heif_encoding_options_free(options);
    heif_encoder_release(encoder);
    heif_image_release(image);
    heif_context_free(ctx);
    return 0;
}
