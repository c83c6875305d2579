import CPoppler
import Foundation
import LecternCore

/// Whether a PDF is beamer's "notes on second screen": what the service and `lectern
/// render` both go by (docs/protocol.md §20.3).
extension PDFDocument {
    /// The notes layout the pages' shapes and the document's evidence call for
    /// (`NotesLayout.detect`).
    public func detectedNotesLayout() -> NotesLayout {
        let shapes = (1...pageCount).compactMap { try? shape(page: $0) }
        guard shapes.count == pageCount else { return .none }
        return NotesLayout.detect(shapes, evidence: notesEvidence(shapes: shapes))
    }

    /// What the document says beyond its shapes. The text of the first page's right half
    /// is read only when every page could be two slides side by side (it costs a text
    /// extraction of one page).
    public func notesEvidence(shapes: [SourceShape]) -> NotesLayout.Evidence {
        var evidence = NotesLayout.Evidence(beamerMark: namesBeamer)
        if !evidence.beamerMark, !shapes.isEmpty, shapes.allSatisfy(NotesLayout.halfIsSlide) {
            evidence.textOnRight = (try? hasText(page: 1, in: .right)) ?? false
        }
        return evidence
    }

    /// The document's Creator or Producer mentions beamer ("LaTeX with Beamer class").
    public var namesBeamer: Bool {
        lock.withLock {
            [poppler_document_get_creator(doc), poppler_document_get_producer(doc)].contains { c in
                guard let c else { return false }
                defer { g_free(c) }
                return String(cString: c).lowercased().contains("beamer")
            }
        }
    }

    /// Whether `part` of page `page` carries any text that isn't blank.
    public func hasText(page: Int, in part: PagePart) throws -> Bool {
        try withPage(page) { p in
            var w = 0.0, h = 0.0
            poppler_page_get_size(p, &w, &h)
            let r = part.region(width: w, height: h)
            var area = PopplerRectangle(x1: r.x, y1: r.y, x2: r.x + r.width, y2: r.y + r.height)
            guard let c = poppler_page_get_text_for_area(p, &area) else { return false }
            defer { g_free(c) }
            return String(cString: c).contains { !$0.isWhitespace }
        }
    }
}
