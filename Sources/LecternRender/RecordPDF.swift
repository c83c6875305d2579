import CPangoCairo
import CPoppler
import Foundation
import LecternModel

/// The meeting record's PDF (docs/protocol.md §26), drawn with cairo's PDF surface: decks'
/// pages as poppler draws them for printing (vectors and text, not pictures), their ink
/// over them as cairo paths (`InkPainter`, as on the wall), polls as the wall's card
/// (`WallCardDrawing`), clips as their first frame with name and duration, and a cover.
public final class RecordPDF {
    /// The record's own pages (cover, whiteboards, polls, clips): 16:9, 960×540 pt
    /// (13.33×7.5 in, a slide's usual size).
    public static let slide = SourceShape(width: 960, height: 540)

    private let surface: OpaquePointer
    let cr: OpaquePointer
    public private(set) var pages = 0

    public init(path: String) throws {
        surface = cairo_pdf_surface_create(path, Self.slide.width, Self.slide.height)
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw ContentError.unreadable(path: path, reason: "can't write the record here")
        }
        cr = cairo_create(surface)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "Lectern")
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    /// Ends the file (the PDF is complete once this returns without throwing).
    public func finish() throws {
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw ContentError.damaged(detail: String(cString: cairo_status_to_string(status)))
        }
    }

    // MARK: pages

    /// The cover: the room, the date and time, and who presented what.
    public func addCover(room: String, date: String, presenters: [(name: String, shown: [String])], footnote: String?) {
        newPage(Self.slide)
        let w = Self.slide.width, h = Self.slide.height
        let c = CairoFrame(drawingOn: cr)
        c.setColor(WallCardDrawing.ink)
        var y = h * 0.08
        y += IdleScreen.text(cr, "Meeting record", bold: true, size: h / 14, x: w * 0.05, y: y, width: w * 0.9) + h * 0.01
        y += IdleScreen.text(cr, room, bold: false, size: h / 20, x: w * 0.05, y: y, width: w * 0.9) + h * 0.005
        y += IdleScreen.text(cr, date, bold: false, size: h / 28, x: w * 0.05, y: y, width: w * 0.9) + h * 0.05
        if !presenters.isEmpty {
            y += IdleScreen.text(cr, "Presented", bold: true, size: h / 26, x: w * 0.05, y: y, width: w * 0.9) + h * 0.01
        }
        // As many presenters as fit; the rest said in one line.
        for (i, p) in presenters.enumerated() {
            if y > h * 0.85 {
                IdleScreen.text(cr, "… and \(presenters.count - i) more", bold: false, size: h / 32, x: w * 0.05, y: y, width: w * 0.9)
                break
            }
            let line = p.name + ": " + p.shown.joined(separator: ", ")
            y += IdleScreen.text(cr, line, bold: false, size: h / 32, x: w * 0.05, y: y, width: w * 0.9) + h * 0.008
        }
        if let footnote { IdleScreen.text(cr, footnote, bold: false, size: h / 40, x: w * 0.05, y: h * 0.93, width: w * 0.9) }
        endPage()
    }

    /// A deck's page (from 1) at its own size (the part the wall shows of it), drawn for
    /// printing, with the ink that was on it.
    public func addDeckPage(_ document: PDFDocument, page: Int, part: PagePart, strokes: [InkStroke]) throws {
        try document.withPage(page) { p in
            var pw = 0.0, ph = 0.0
            poppler_page_get_size(p, &pw, &ph)
            let r = part.region(width: pw, height: ph)
            let size = SourceShape(width: max(1, r.width), height: max(1, r.height))
            newPage(size)
            cairo_save(cr)
            cairo_rectangle(cr, 0, 0, size.width, size.height)
            cairo_clip(cr)
            cairo_translate(cr, -r.x, -r.y)
            errno = 0
            poppler_page_render_for_printing(p, cr)
            let failedAllocation = errno == ENOMEM || cairo_status(cr) == CAIRO_STATUS_NO_MEMORY
            cairo_restore(cr)
            if failedAllocation { throw ContentError.overLimits(page: page, megabytes: 0) }
            InkPainter.paint(strokes: strokes, cr: cr, x: 0, y: 0, width: size.width, height: size.height)
            endPage()
        }
    }

    /// A whiteboard: its colour and its ink, at the whiteboard's shape.
    public func addWhiteboard(black: Bool, strokes: [InkStroke]) {
        newPage(Self.slide)
        CairoFrame(drawingOn: cr).setColor(black ? .black : .white)
        cairo_paint(cr)
        InkPainter.paint(strokes: strokes, cr: cr, x: 0, y: 0, width: Self.slide.width, height: Self.slide.height)
        endPage()
    }

    /// A poll's results as the wall showed them.
    public func addCard(_ card: WallCard) {
        newPage(Self.slide)
        let c = CairoFrame(drawingOn: cr)
        c.fill(PixelRect(x: 0, y: 0, width: Int(Self.slide.width), height: Int(Self.slide.height)), RGB(235, 235, 235))
        WallCardDrawing.draw(card, on: c, width: Int(Self.slide.width), height: Int(Self.slide.height))
        endPage()
    }

    /// A clip: its first frame (nil: it could not be decoded), its name and duration.
    public func addClip(firstFrame: Frame?, name: String, duration: Double) {
        newPage(Self.slide)
        let w = Self.slide.width, h = Self.slide.height
        let c = CairoFrame(drawingOn: cr)
        c.setColor(.black)
        cairo_paint(cr)
        let box = PixelRect(x: Int(w * 0.1), y: Int(h * 0.05), width: Int(w * 0.8), height: Int(h * 0.72))
        if let f = firstFrame, f.width > 0, f.height > 0 {
            let scale = min(Double(box.width) / Double(f.width), Double(box.height) / Double(f.height))
            let w = Double(f.width) * scale, h = Double(f.height) * scale
            drawImage(f, x: Double(box.x) + (Double(box.width) - w) / 2, y: Double(box.y) + (Double(box.height) - h) / 2, width: w, height: h)
        }
        c.setColor(.white)
        let seconds = Int(duration.rounded())
        let length = String(format: "%d:%02d", seconds / 60, seconds % 60)
        IdleScreen.text(cr, "Clip: \(name)", bold: true, size: h / 22, x: w * 0.05, y: h * 0.81, width: w * 0.9)
        IdleScreen.text(cr, "Duration \(length)", bold: false, size: h / 30, x: w * 0.05, y: h * 0.89, width: w * 0.9)
        endPage()
    }

    // MARK: -

    func newPage(_ size: SourceShape) {
        cairo_pdf_surface_set_size(surface, size.width, size.height)
        cairo_new_path(cr)
    }

    func endPage() {
        cairo_show_page(cr)
        pages += 1
    }
}
