import CPangoCairo
import LecternModel

/// The code on the wall, small in a corner over what is shown, while a device is joining
/// (`screen_code = true`, issue 19 must 1): a dark box at the bottom right of the safe area
/// with "Code 123 456", readable from the room, covering little of the slide.
public enum CornerCode {
    /// Where the box goes on a `width`×`height` output: the bottom right of the safe area,
    /// a 14th of the height tall.
    public static func rect(width: Int, height: Int, overscanPercent: Double = 0) -> PixelRect {
        let safe = Fit.safeArea(width: width, height: height, overscanPercent: overscanPercent)
        let h = max(24, height / 14)
        let w = h * 5
        let margin = height / 54
        return PixelRect(x: safe.maxX - w - margin, y: safe.maxY - h - margin, width: w, height: h)
    }

    /// The text drawn: "Code 123 456".
    public static func text(_ code: String) -> String {
        "Code " + (code.count == 6 ? String(code.prefix(3)) + " " + String(code.suffix(3)) : code)
    }

    /// Draws the box with `code` into `frame` (over whatever is there).
    public static func draw(_ code: String, into frame: Frame, overscanPercent: Double = 0) {
        let r = rect(width: frame.width, height: frame.height, overscanPercent: overscanPercent)
        let c = CairoFrame(frame)
        defer { c.finish() }
        let radius = Double(r.height) / 5
        let (x, y, w, h) = (Double(r.x), Double(r.y), Double(r.width), Double(r.height))
        cairo_new_sub_path(c.cr)
        cairo_arc(c.cr, x + w - radius, y + radius, radius, -Double.pi / 2, 0)
        cairo_arc(c.cr, x + w - radius, y + h - radius, radius, 0, Double.pi / 2)
        cairo_arc(c.cr, x + radius, y + h - radius, radius, Double.pi / 2, Double.pi)
        cairo_arc(c.cr, x + radius, y + radius, radius, Double.pi, 3 * Double.pi / 2)
        cairo_close_path(c.cr)
        c.setColor(RGB(20, 20, 20))
        cairo_fill(c.cr)
        c.setColor(RGB(250, 250, 250))
        let size = h * 0.55
        IdleScreen.text(c.cr, text(code), bold: true, size: size, x: x, y: y + (h - size * 1.17) / 2, width: w)
    }
}
