import CPangoCairo
import LecternModel

/// Draws ink and pointers over a page already in a frame, with cairo: strokes as the
/// Catmull-Rom spline through their samples (`InkSpline`), pointers as a dot with a short
/// fading trail. Everything is placed through `rect`, the page's box on the output (the
/// same `Fit.rect` the page was drawn in), and clipped to it.
public enum InkPainter {
    /// A pointer to draw: its trail, oldest first, each with its opacity; the last is the dot.
    public typealias Trail = [(point: InkPoint, alpha: Double)]

    public static func paint(strokes: [InkStroke], pointers: [Trail], into frame: Frame, rect: PixelRect) {
        guard !rect.isEmpty, !(strokes.isEmpty && pointers.isEmpty) else { return }
        let c = CairoFrame(frame)
        defer { c.finish() }
        let cr = c.cr
        cairo_rectangle(cr, Double(rect.x), Double(rect.y), Double(rect.width), Double(rect.height))
        cairo_clip(cr)
        let h = Double(rect.height)
        func place(_ p: InkPoint) -> InkSpline.Point {
            InkSpline.Point(Double(rect.x) + p.px * Double(rect.width), Double(rect.y) + p.py * h)
        }
        paint(strokes: strokes, cr: cr, x: Double(rect.x), y: Double(rect.y), width: Double(rect.width), height: h)
        let radius = max(6, 0.014 * h)
        for trail in pointers {
            guard let dot = trail.last, dot.alpha > 0 else { continue }
            // the trail: segments thinning and fading towards the oldest sample
            for i in stride(from: 1, to: trail.count, by: 1) {
                let a = place(trail[i - 1].point), b = place(trail[i].point)
                let alpha = trail[i - 1].alpha * 0.6
                guard alpha > 0.01 else { continue }
                setColor(cr, InkPalette.pointer, alpha: alpha)
                cairo_set_line_width(cr, radius * (0.5 + 0.8 * Double(i) / Double(trail.count)))
                cairo_move_to(cr, a.x, a.y)
                cairo_line_to(cr, b.x, b.y)
                cairo_stroke(cr)
            }
            let p = place(dot.point)
            setColor(cr, .white, alpha: dot.alpha * 0.9)
            cairo_arc(cr, p.x, p.y, radius + max(2, radius * 0.25), 0, 2 * Double.pi)
            cairo_fill(cr)
            setColor(cr, InkPalette.pointer, alpha: dot.alpha)
            cairo_arc(cr, p.x, p.y, radius, 0, 2 * Double.pi)
            cairo_fill(cr)
        }
    }

    /// Draws finished strokes on any cairo context (a frame, or a page of the meeting
    /// record's PDF), the page's box at (`x`, `y`) of `width`×`height`: the same splines,
    /// colours and widths as the wall.
    static func paint(strokes: [InkStroke], cr: OpaquePointer, x: Double, y: Double, width: Double, height: Double) {
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        func place(_ p: InkPoint) -> InkSpline.Point { InkSpline.Point(x + p.px * width, y + p.py * height) }
        let h = height
        for s in strokes {
            guard let (start, segments) = InkSpline.beziers(s.points.map(place)) else { continue }
            setColor(cr, s.color, alpha: s.alpha)
            let width = max(1.5, s.relativeWidth * h)
            if segments.isEmpty {   // a tap: a dot as wide as the line
                cairo_arc(cr, start.x, start.y, width / 2, 0, 2 * Double.pi)
                cairo_fill(cr)
                continue
            }
            cairo_move_to(cr, start.x, start.y)
            for g in segments { cairo_curve_to(cr, g.c1.x, g.c1.y, g.c2.x, g.c2.y, g.to.x, g.to.y) }
            cairo_set_line_width(cr, width)
            cairo_stroke(cr)
        }
    }

    static func setColor(_ cr: OpaquePointer, _ c: RGB, alpha: Double) {
        cairo_set_source_rgba(cr, Double(c.r) / 255, Double(c.g) / 255, Double(c.b) / 255, alpha)
    }
}
