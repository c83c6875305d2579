import CPangoCairo
import LecternModel

extension RecordPDF {
    /// A live share's page of the record (docs/protocol.md §26.1): its picture when it
    /// started and when it ended side by side (one, when they are the same or only one was
    /// taken), who shared what, when, and for how long.
    public func addShare(start: Frame?, end: Frame?, name: String, source: String, date: String, duration: Double) {
        newPage(Self.slide)
        let w = Self.slide.width, h = Self.slide.height
        let c = CairoFrame(drawingOn: cr)
        c.setColor(.black)
        cairo_paint(cr)
        let pictures = [start, end].compactMap { $0 }
        let both = pictures.count == 2 && pictures[0] !== pictures[1]
        let boxes =
            both
            ? [
                PixelRect(x: Int(w * 0.03), y: Int(h * 0.08), width: Int(w * 0.455), height: Int(h * 0.6)),
                PixelRect(x: Int(w * 0.515), y: Int(h * 0.08), width: Int(w * 0.455), height: Int(h * 0.6)),
            ]
            : [PixelRect(x: Int(w * 0.1), y: Int(h * 0.05), width: Int(w * 0.8), height: Int(h * 0.68))]
        for (f, box) in zip(both ? pictures : Array(pictures.suffix(1)), boxes) { draw(f, in: box) }
        c.setColor(.white)
        if both {
            IdleScreen.text(cr, "When it started", bold: false, size: h / 36, x: w * 0.03, y: h * 0.7, width: w * 0.45)
            IdleScreen.text(cr, "When it ended", bold: false, size: h / 36, x: w * 0.515, y: h * 0.7, width: w * 0.45)
        }
        let seconds = Int(duration.rounded())
        let length = seconds >= 3600 ? String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60) : String(format: "%d:%02d", seconds / 60, seconds % 60)
        let what = source == "camera" ? "Camera" : source == "file" ? "Shared stream" : "Shared screen"
        IdleScreen.text(cr, "\(what): \(name)", bold: true, size: h / 22, x: w * 0.05, y: h * 0.79, width: w * 0.9)
        IdleScreen.text(cr, "\(date), \(length)", bold: false, size: h / 30, x: w * 0.05, y: h * 0.88, width: w * 0.9)
        endPage()
    }

    private func draw(_ f: Frame, in box: PixelRect) {
        guard f.width > 0, f.height > 0 else { return }
        let image = cairo_image_surface_create_for_data(
            f.baseAddress.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24, Int32(f.width), Int32(f.height), Int32(f.stride))
        let scale = min(Double(box.width) / Double(f.width), Double(box.height) / Double(f.height))
        cairo_save(cr)
        cairo_translate(cr, Double(box.x) + (Double(box.width) - Double(f.width) * scale) / 2, Double(box.y) + (Double(box.height) - Double(f.height) * scale) / 2)
        cairo_scale(cr, scale, scale)
        cairo_set_source_surface(cr, image, 0, 0)
        cairo_paint(cr)
        cairo_restore(cr)
        cairo_surface_destroy(image)
    }
}
