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
static inline int lectern_jpeg_encode_bgrx(const unsigned char *pixels, int width, int height, int stride, int quality,
                                           unsigned char **out, unsigned long *outSize) {
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
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)c.next_scanline * (size_t)stride);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    return 0;
}
