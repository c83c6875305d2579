import CPangoCairo
import CPoppler
import LecternModel

extension Frame {
    /// This frame scaled to `width`×`height` through cairo (filtered, so text stays legible
    /// when shrinking): small screenshots for a phone's preview. The frame itself when the
    /// size is its own.
    public func scaled(width: Int, height: Int) -> Frame {
        if width == self.width && height == self.height { return self }
        let out = Frame(width: max(1, width), height: max(1, height))
        let src = CairoFrame(self), dst = CairoFrame(out)
        cairo_scale(dst.cr, Double(out.width) / Double(self.width), Double(out.height) / Double(self.height))
        cairo_set_source_surface(dst.cr, src.surface, 0, 0)
        let pattern = cairo_get_source(dst.cr)
        cairo_pattern_set_filter(pattern, CAIRO_FILTER_GOOD)
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)   // no dark seam at the edges
        cairo_set_operator(dst.cr, CAIRO_OPERATOR_SOURCE)
        cairo_paint(dst.cr)
        dst.finish()
        src.finish()
        return out
    }
}
