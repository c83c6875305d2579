import CPangoCairo
import CPoppler
import LecternModel

/// A cairo context drawing straight into a `Frame`'s pixels (cairo's RGB24 is XRGB8888).
/// The only place a cairo surface is made over frame memory.
struct CairoFrame {
    let surface: OpaquePointer?
    let cr: OpaquePointer

    init(_ frame: Frame) {
        surface = cairo_image_surface_create_for_data(
            frame.baseAddress.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
            Int32(frame.width), Int32(frame.height), Int32(frame.stride))
        cr = cairo_create(surface)
    }

    /// Over a context someone else made (a page of the meeting record's PDF): `finish`
    /// leaves it alone.
    init(drawingOn cr: OpaquePointer) {
        surface = nil
        self.cr = cr
    }

    /// Flushes what was drawn into the frame and frees cairo's objects.
    func finish() {
        guard let surface else { return }
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        cairo_surface_finish(surface)
        cairo_surface_destroy(surface)
    }

    func setColor(_ c: RGB) {
        cairo_set_source_rgb(cr, Double(c.r) / 255, Double(c.g) / 255, Double(c.b) / 255)
    }

    func fill(_ r: PixelRect, _ c: RGB) {
        setColor(c)
        cairo_rectangle(cr, Double(r.x), Double(r.y), Double(r.width), Double(r.height))
        cairo_fill(cr)
    }
}
