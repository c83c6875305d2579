import LecternModel
import LecternProtocol

/// What the presenter console needs to know of a stored PDF, read once when it is stored
/// (the shell reads the file; the core never does): its page labels, whether its pages
/// look like a beamer deck with notes on a second screen, and the text of its text
/// annotations (sticky notes), per page.
public struct DeckFacts: Codable, Equatable, Sendable {
    /// One label per page ("1", "iv", "A-2"); the page number where the PDF has none.
    public var labels: [String]
    /// Where beamer notes sit, as detected from the pages' shape.
    public var detectedLayout: NotesLayout
    /// Page (1-based, as a string) → the page's text annotations, joined by blank lines.
    public var annotations: [String: String]
    /// The detection rule `detectedLayout` was decided by (nil: before rules were numbered,
    /// width alone): facts of an older rule are read again from the file.
    public var layoutRule: Int?

    /// `NotesLayout.detect` on real evidence (docs/protocol.md §20.3).
    public static let currentLayoutRule = 2

    /// Whether these facts were decided by an older rule than today's.
    public var outdated: Bool { layoutRule != Self.currentLayoutRule }

    public init(labels: [String], detectedLayout: NotesLayout = .none, annotations: [Int: String] = [:]) {
        self.labels = labels
        self.detectedLayout = detectedLayout
        self.annotations = [:]
        self.layoutRule = Self.currentLayoutRule
        for (k, v) in annotations where !v.isEmpty { self.annotations[String(k)] = v }
    }

    public var numbering: SlideNumbering { SlideNumbering(labels: labels) }
}

/// A deck's notes as the console serves them to one reader (`author`, DeckNotes.author):
/// the note they typed first, then the file's (.pdfpc) note — each also of the slide's
/// first step for its later steps — then the PDF's own annotations. Another author's typed
/// notes are never served.
public struct DeckConsole: Equatable, Sendable {
    public var facts: DeckFacts
    public var notes: DeckNotes
    public init(facts: DeckFacts, notes: DeckNotes = DeckNotes()) {
        self.facts = facts
        self.notes = notes
    }

    public var layout: NotesLayout { notes.layout ?? facts.detectedLayout }

    public var hasNotes: Bool { !notes.isEmpty || !facts.annotations.isEmpty || layout != .none }

    /// The note of `page` (1-based) for `author` and where it came from.
    public func note(page: Int, for author: String?) -> (text: String, source: String) {
        let first = facts.numbering.firstPageOfSlide(containing: page)
        if let a = author {
            if let t = notes.typed(page: page, by: a) { return (t, "typed") }
            if first != page, let t = notes.typed(page: first, by: a) { return (t, "typed") }
        }
        if let t = notes[page] { return (t, "typed") }
        if first != page, let t = notes[first] { return (t, "typed") }
        if let t = facts.annotations[String(page)] { return (t, "annotation") }
        return ("", "none")
    }

    /// The reply to notes-request for `page` (0: every page) of the upload `content`.
    public func reply(content: ContentID, page: Int, for author: String?) -> NotesReply {
        let pages = page == 0 ? Array(1...max(1, facts.labels.count)) : [page]
        return NotesReply(
            content: content.hex, layout: layout,
            pages: pages.map { p in
                let n = note(page: p, for: author)
                return NotesReply.Page(page: p, label: p <= facts.labels.count ? facts.labels[p - 1] : String(p), text: n.text, source: n.source)
            },
            durationMinutes: notes.durationMinutes, endTime: notes.endTime, lastMinutes: notes.lastMinutes)
    }
}
