import CPoppler
import Foundation
import LecternModel

/// Whether a PDF is beamer's "notes on second screen": what the service and `lectern
/// render` both go by (docs/protocol.md §20.3).
extension PDFDocument {
    /// The notes layout the pages' shapes and the document's evidence call for
    /// (`NotesLayout.detect`).
    func detectedNotesLayout() -> NotesLayout {
        let shapes = (1...pageCount).compactMap { try? shape(page: $0) }
        guard shapes.count == pageCount else { return .none }
        return NotesLayout.detect(shapes, evidence: notesEvidence(shapes: shapes))
    }

    /// What the document says beyond its shapes: only its Info dictionary is read (no
    /// page's content, which may take minutes to interpret).
    public func notesEvidence(shapes: [SourceShape]) -> NotesLayout.Evidence {
        NotesLayout.Evidence(beamerMark: namesBeamer)
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
}
