// libvips for photos and images made into decks (LecternPhotos). Its calls take options as
// NULL-terminated varargs, which Swift can't make: each call the adapter needs is one
// fixed-argument function here.
#include <vips/vips.h>
#include <vips/vector.h>

// Starts libvips for a child that decodes untrusted images: one thread, no operation
// cache, no run-time code generation (liborc's JIT would write executable memory in the
// process reading hostile input, which the unit's MemoryDenyWriteExecute= forbids anyway:
// it costs ≈ 0.1 s of processor time on a 12 MP photo), and every loader blocked but the
// five the appliance takes (JPEG, PNG, WebP, GIF, HEIF/HEIC/AVIF through libheif); the
// "untrusted" ones (ImageMagick, PDF, SVG, …) stay blocked whatever the list says.
// Returns 0, or -1 when libvips failed to start.
static inline int lectern_vips_start(const char *argv0) {
    if (VIPS_INIT(argv0)) return -1;
    vips_vector_set_enabled(FALSE);
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    vips_operation_block_set("VipsForeignLoadJpeg", FALSE);
    vips_operation_block_set("VipsForeignLoadPng", FALSE);
    vips_operation_block_set("VipsForeignLoadWebp", FALSE);
    vips_operation_block_set("VipsForeignLoadNsgif", FALSE);
    vips_operation_block_set("VipsForeignLoadHeif", FALSE);
    return 0;
}

// The header of `path` (nothing decoded): its size as stored, its EXIF orientation (1–8;
// 1 when it has none) and the class of the loader that reads it ("VipsForeignLoadJpegFile").
// Returns 0, or -1 (no loader reads it, or its loader is blocked).
static inline int lectern_vips_header(const char *path, int *width, int *height, int *orientation, const char **loader) {
    vips_error_clear();
    *loader = vips_foreign_find_load(path);
    if (!*loader) return -1;
    VipsImage *im = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!im) return -1;
    *width = vips_image_get_width(im);
    *height = vips_image_get_height(im);
    *orientation = 1;
    if (vips_image_get_typeof(im, VIPS_META_ORIENTATION)) vips_image_get_int(im, VIPS_META_ORIENTATION, orientation);
    g_object_unref(im);
    return 0;
}

// `path` decoded at most `width` × `height` (aspect kept, never enlarged; shrunk while
// loading where the format allows it, as JPEG does), turned upright by its EXIF
// orientation, in sRGB, flattened on white, 8 bits, as cairo's RGB24 lays it out on a
// little-endian machine (B, G, R, 255): written to a g_malloc'd buffer of width × height
// × 4 bytes (free it with g_free). Returns 0, or -1.
static inline int lectern_vips_decode(const char *path, int width, int height, unsigned char **pixels, int *outWidth, int *outHeight) {
    VipsImage *t = NULL, *c = NULL, *f = NULL, *u = NULL, *bgr[3] = {NULL, NULL, NULL}, *j = NULL, *x = NULL;
    int rc = -1;
    *pixels = NULL;
    vips_error_clear();
    if (vips_thumbnail(path, &t, width, "height", height, "size", VIPS_SIZE_DOWN, NULL)) goto done;
    if (vips_colourspace(t, &c, VIPS_INTERPRETATION_sRGB, NULL)) goto done;
    if (vips_image_hasalpha(c)) {
        double white[3] = {255, 255, 255};
        VipsArrayDouble *bg = vips_array_double_new(white, 3);
        int failed = vips_flatten(c, &f, "background", bg, NULL);
        vips_area_unref(VIPS_AREA(bg));
        if (failed) goto done;
    } else {
        f = c;
        g_object_ref(f);
    }
    if (vips_cast(f, &u, VIPS_FORMAT_UCHAR, NULL)) goto done;
    if (vips_image_get_bands(u) != 3) goto done;
    for (int i = 0; i < 3; i++) {
        if (vips_extract_band(u, &bgr[i], 2 - i, NULL)) goto done;
    }
    if (vips_bandjoin(bgr, &j, 3, NULL)) goto done;
    if (vips_bandjoin_const1(j, &x, 255, NULL)) goto done;
    size_t size = 0;
    *pixels = vips_image_write_to_memory(x, &size);
    if (!*pixels) goto done;
    *outWidth = vips_image_get_width(x);
    *outHeight = vips_image_get_height(x);
    if (size != (size_t)*outWidth * (size_t)*outHeight * 4) { g_free(*pixels); *pixels = NULL; goto done; }
    rc = 0;
done:
    if (t) g_object_unref(t);
    if (c) g_object_unref(c);
    if (f) g_object_unref(f);
    if (u) g_object_unref(u);
    for (int i = 0; i < 3; i++) if (bgr[i]) g_object_unref(bgr[i]);
    if (j) g_object_unref(j);
    if (x) g_object_unref(x);
    return rc;
}

// libvips's last error messages (cleared after reading).
static inline void lectern_vips_error(char *out, int capacity) {
    const char *e = vips_error_buffer();
    snprintf(out, (size_t)capacity, "%s", e ? e : "");
    vips_error_clear();
}
