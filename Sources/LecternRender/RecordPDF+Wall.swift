import CPangoCairo
import CPoppler
import Foundation
import LecternModel

extension RecordPDF {
    /// A wall of several panes (docs/protocol.md §26.1) as one page with the output's shape,
    /// 960 pt wide: the wall's background, and every pane at its place (the wall's own pane
    /// rectangles, `RecordWall.paneRects`, scaled to the page), its source fitted
    /// aspect-preserving with bars exactly as the wall fits it: a deck's page drawn by
    /// poppler for printing (vectors and text kept) on white paper with its ink over it, a
    /// whiteboard its colour and ink, a clip its first frame (`poster`), a blanked pane its
    /// colour, an empty pane the background. A page that can't be drawn says so in its pane.
    public func addWall(
        _ wall: RecordWall, background: RGB, overscanPercent: Double, document: (String) throws -> PDFDocument, poster: (String) -> Frame?
    ) {
        let k = Self.slide.width / Double(max(1, wall.width))
        // The output's shape (a saved record is a file: an absurd shape is held to 4:1 … 1:4).
        let size = SourceShape(width: Self.slide.width, height: min(4 * Self.slide.width, max(Self.slide.width / 4, (Double(max(1, wall.height)) * k).rounded())))
        newPage(size)
        let c = CairoFrame(drawingOn: cr)
        c.setColor(background)
        cairo_paint(cr)
        let rects = wall.paneRects(overscanPercent: overscanPercent)
        for (i, pane) in wall.panes.enumerated() where i < rects.count {
            let area = rects[i]
            switch pane {
            case .empty: break
            case .blank(let white):
                fillPoints(area, k, white ? .white : .black)
            case .clip(let content, _):
                guard let f = poster(content), f.width > 0, f.height > 0 else { continue }
                let inner = Fit.rect(aspect: Double(f.width) / Double(f.height), in: area)
                drawImage(f, x: Double(inner.x) * k, y: Double(inner.y) * k, width: Double(inner.width) * k, height: Double(inner.height) * k)
            case .page(let content, let name, let page, let part, let strokes):
                if let board = Whiteboard.background(content) {
                    let inner = Self.inside(area, Whiteboard.shape)
                    fillPoints(inner, k, board)
                    inkPoints(strokes, inner, k)
                    continue
                }
                do {
                    try drawPage(try document(content), page: page, part: part, area: area, k, strokes: strokes)
                } catch {
                    // A deck removed since, or a page poppler can't draw: said in its pane.
                    c.setColor(background == .white ? .black : .white)
                    IdleScreen.text(
                        cr, "\(name), page \(page) could not be drawn", bold: false, size: Double(area.height) * k / 16,
                        x: Double(area.x) * k + 8, y: Double(area.y) * k + 8, width: Double(area.width) * k - 16)
                }
            }
        }
        endPage()
    }

    /// Where a source of `shape` sits in a pane, as the wall fits it (`Compositor.paneFrame`).
    static func inside(_ area: PixelRect, _ shape: SourceShape) -> PixelRect {
        let r = Fit.rect(for: shape, width: area.width, height: area.height, overscanPercent: 0)
        return PixelRect(x: area.x + r.x, y: area.y + r.y, width: r.width, height: r.height)
    }

    private func drawPage(_ d: PDFDocument, page: Int, part: PagePart, area: PixelRect, _ k: Double, strokes: [InkStroke]) throws {
        let inner = Self.inside(area, part.shape(of: try d.shape(page: page)))
        try d.withPage(page) { p in
            var pw = 0.0, ph = 0.0
            poppler_page_get_size(p, &pw, &ph)
            let r = part.region(width: pw, height: ph)
            let x = Double(inner.x) * k, y = Double(inner.y) * k, w = Double(inner.width) * k, h = Double(inner.height) * k
            cairo_save(cr)
            cairo_rectangle(cr, x, y, w, h)
            cairo_clip(cr)
            cairo_set_source_rgb(cr, 1, 1, 1)   // the paper, as on the wall
            cairo_paint(cr)
            cairo_translate(cr, x, y)
            cairo_scale(cr, w / max(r.width, 1e-6), h / max(r.height, 1e-6))
            cairo_translate(cr, -r.x, -r.y)
            errno = 0
            poppler_page_render_for_printing(p, cr)
            let failedAllocation = errno == ENOMEM || cairo_status(cr) == CAIRO_STATUS_NO_MEMORY
            cairo_restore(cr)
            if failedAllocation { throw ContentError.overLimits(page: page, megabytes: 0) }
        }
        inkPoints(strokes, inner, k)
    }

    /// Fills a rectangle given in the output's pixels.
    private func fillPoints(_ r: PixelRect, _ k: Double, _ color: RGB) {
        CairoFrame(drawingOn: cr).setColor(color)
        cairo_rectangle(cr, Double(r.x) * k, Double(r.y) * k, Double(r.width) * k, Double(r.height) * k)
        cairo_fill(cr)
    }

    /// Ink over the page box `r` (the output's pixels), as on the wall.
    private func inkPoints(_ strokes: [InkStroke], _ r: PixelRect, _ k: Double) {
        guard !strokes.isEmpty else { return }
        cairo_save(cr)
        cairo_rectangle(cr, Double(r.x) * k, Double(r.y) * k, Double(r.width) * k, Double(r.height) * k)
        cairo_clip(cr)
        InkPainter.paint(strokes: strokes, cr: cr, x: Double(r.x) * k, y: Double(r.y) * k, width: Double(r.width) * k, height: Double(r.height) * k)
        cairo_restore(cr)
    }

    /// A picture scaled to fill the rectangle (points).
    func drawImage(_ f: Frame, x: Double, y: Double, width: Double, height: Double) {
        let image = cairo_image_surface_create_for_data(
            f.baseAddress.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24, Int32(f.width), Int32(f.height), Int32(f.stride))
        cairo_save(cr)
        cairo_translate(cr, x, y)
        cairo_scale(cr, width / Double(f.width), height / Double(f.height))
        cairo_set_source_surface(cr, image, 0, 0)
        cairo_paint(cr)
        cairo_restore(cr)
        cairo_surface_destroy(image)
    }
}
