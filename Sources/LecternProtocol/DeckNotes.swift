import LecternCore

/// The speaker notes a presenter keeps with one upload: typed on a device or read from a
/// `.pdfpc` file, per page, and what the `.pdfpc` file says about the talk. Kept by the
/// service next to the upload (`<id>.notes.json`). Annotation notes are not here: they
/// are the PDF's own, read when it is stored.
public struct DeckNotes: Codable, Equatable, Sendable {
    /// Page number (1-based, as a string: JSON keys) → note.
    public var pages: [String: String] = [:]
    /// The beamer notes layout chosen for this upload (nil: as detected from its pages).
    public var layout: NotesLayout?
    public var durationMinutes: Int?
    public var endTime: String?
    public var lastMinutes: Int?

    public init(pages: [Int: String] = [:], layout: NotesLayout? = nil, durationMinutes: Int? = nil, endTime: String? = nil, lastMinutes: Int? = nil) {
        for (k, v) in pages where !v.isEmpty { self.pages[String(k)] = v }
        self.layout = layout
        self.durationMinutes = durationMinutes
        self.endTime = endTime
        self.lastMinutes = lastMinutes
    }

    public subscript(page: Int) -> String? {
        get { pages[String(page)] }
        set {
            if let v = newValue, !v.isEmpty { pages[String(page)] = v } else { pages[String(page)] = nil }
        }
    }

    /// UTF-8 bytes of every note together (bounded by `ConsoleLimits.maxDeckNotesBytes`).
    public var textBytes: Int { pages.values.reduce(0) { $0 + $1.utf8.count } }

    public var isEmpty: Bool { pages.isEmpty }
}
