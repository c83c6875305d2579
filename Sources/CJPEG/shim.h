// libjpeg(-turbo) for the web remote's previews: one call that compresses a frame of
// XRGB8888 (B, G, R, X bytes on little-endian) to a JPEG in memory. libjpeg reports errors
// by longjmp out of its error_exit; that stays here in C (Swift can't be jumped over).
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <jpeglib.h>

struct lectern_jpeg_error {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
};

static void lectern_jpeg_error_exit(j_common_ptr cinfo) {
    struct lectern_jpeg_error *e = (struct lectern_jpeg_error *)cinfo->err;
    longjmp(e->jump, 1);
}

static void lectern_jpeg_quiet(j_common_ptr cinfo) { (void)cinfo; }

// Returns 0 and a malloc'd buffer in *out (free it with free()), or -1.
// full_chroma: 4:4:4 (no chroma subsampling: coloured text stays sharp), else 4:2:0.
static inline int lectern_jpeg_encode_bgrx_sampled(const unsigned char *pixels, int width, int height, int stride, int quality,
                                                   int full_chroma, unsigned char **out, unsigned long *outSize) {
    struct jpeg_compress_struct c;
    struct lectern_jpeg_error e;
    *out = NULL;
    *outSize = 0;
    c.err = jpeg_std_error(&e.mgr);
    e.mgr.error_exit = lectern_jpeg_error_exit;
    e.mgr.output_message = lectern_jpeg_quiet;
    if (setjmp(e.jump)) {
        jpeg_destroy_compress(&c);
        if (*out) { free(*out); *out = NULL; }
        return -1;
    }
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, out, outSize);
    c.image_width = (JDIMENSION)width;
    c.image_height = (JDIMENSION)height;
    c.input_components = 4;
    c.in_color_space = JCS_EXT_BGRX;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, quality, TRUE);
    if (full_chroma) {
        for (int i = 0; i < c.num_components; i++) { c.comp_info[i].h_samp_factor = 1; c.comp_info[i].v_samp_factor = 1; }
    }
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)c.next_scanline * (size_t)stride);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    return 0;
}

static inline int lectern_jpeg_encode_bgrx(const unsigned char *pixels, int width, int height, int stride, int quality,
                                           unsigned char **out, unsigned long *outSize) {
    return lectern_jpeg_encode_bgrx_sampled(pixels, width, height, stride, quality, 0, out, outSize);
}

// A JPEG in memory to XRGB8888 (B, G, R, X) in `pixels` (width*height*4 bytes, malloc'd;
// free it with free()), or -1. At most max_pixels pixels.
static inline int lectern_jpeg_decode_bgrx(const unsigned char *data, unsigned long size, long max_pixels,
                                           unsigned char **pixels, int *width, int *height) {
    struct jpeg_decompress_struct d;
    struct lectern_jpeg_error e;
    *pixels = NULL;
    d.err = jpeg_std_error(&e.mgr);
    e.mgr.error_exit = lectern_jpeg_error_exit;
    e.mgr.output_message = lectern_jpeg_quiet;
    if (setjmp(e.jump)) {
        jpeg_destroy_decompress(&d);
        if (*pixels) { free(*pixels); *pixels = NULL; }
        return -1;
    }
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, data, size);
    jpeg_read_header(&d, TRUE);
    d.out_color_space = JCS_EXT_BGRX;
    jpeg_start_decompress(&d);
    if ((long)d.output_width * (long)d.output_height > max_pixels || d.output_components != 4) {
        jpeg_destroy_decompress(&d);
        return -1;
    }
    *width = (int)d.output_width;
    *height = (int)d.output_height;
    *pixels = malloc((size_t)d.output_width * d.output_height * 4);
    if (!*pixels) { jpeg_destroy_decompress(&d); return -1; }
    while (d.output_scanline < d.output_height) {
        JSAMPROW row = (JSAMPROW)(*pixels + (size_t)d.output_scanline * d.output_width * 4);
        jpeg_read_scanlines(&d, &row, 1);
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    return 0;
}
