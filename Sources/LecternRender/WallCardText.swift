import CPangoCairo
import LecternModel

/// Text on a wall card that fits its box: the largest size from `maxSize` down to
/// `minSize` at which the text, wrapped at word (or, for a long word, character)
/// boundaries, fits the box's height (and, for one line, its width); at `minSize` what
/// still doesn't fit is ellipsised at the box's bottom, and the report says it was cut.
public enum WallCardText {
    /// What was drawn where: every text on a card, for the card's tests and the record.
    public struct Placed: Equatable, Sendable {
        public var text: String
        /// The font size used, in pixels.
        public var size: Double
        /// The box the text was given.
        public var box: PixelRect
        /// The text's logical extents as drawn (inside `box` unless `cut`).
        public var drawn: PixelRect
        /// Part of the text was ellipsised: it did not fit the box even at the least size.
        public var cut: Bool
    }

    /// Left-aligned, wrapped at words, or one line (`wrap` false: shrinks to the width).
    @discardableResult
    static func draw(
        _ cr: OpaquePointer, _ s: String, bold: Bool, box: PixelRect, maxSize: Double, minSize: Double,
        wrap: Bool = true, align: PangoAlignment = PANGO_ALIGN_LEFT
    ) -> Placed {
        let placed = Placed(text: s, size: 0, box: box, drawn: PixelRect(x: box.x, y: box.y, width: 0, height: 0), cut: false)
        guard box.width > 0, box.height > 0, let layout = pango_cairo_create_layout(cr) else { return placed }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let desc = pango_font_description_from_string(IdleScreen.fontFamily + (bold ? " Bold" : ""))
        defer { pango_font_description_free(desc) }
        pango_layout_set_text(layout, s, -1)
        pango_layout_set_width(layout, Int32(Double(box.width) * Double(PANGO_SCALE)))
        pango_layout_set_alignment(layout, align)
        if wrap {
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        } else {
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        }
        var logical = PangoRectangle(), ink = PangoRectangle()
        var size = max(minSize, maxSize)
        while true {
            pango_font_description_set_absolute_size(desc, size * Double(PANGO_SCALE))
            pango_layout_set_font_description(layout, desc)
            pango_layout_get_pixel_extents(layout, &ink, &logical)
            let fits = Double(logical.height) <= Double(box.height) && pango_layout_is_ellipsized(layout) == 0
            if fits || size <= minSize { break }
            size = max(minSize, size * 0.92)
        }
        if wrap, Double(logical.height) > Double(box.height) {
            // Even the least size is too tall: what fits, ending in an ellipsis.
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
            pango_layout_set_height(layout, Int32(Double(box.height) * Double(PANGO_SCALE)))
            pango_layout_get_pixel_extents(layout, &ink, &logical)
        }
        let cut = pango_layout_is_ellipsized(layout) != 0
        cairo_move_to(cr, Double(box.x), Double(box.y))
        pango_cairo_show_layout(cr, layout)
        let drawn = PixelRect(x: box.x + Int(logical.x), y: box.y + Int(logical.y), width: Int(logical.width), height: Int(logical.height))
        return Placed(text: s, size: size, box: box, drawn: drawn, cut: cut)
    }
}
