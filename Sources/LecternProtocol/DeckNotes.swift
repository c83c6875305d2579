import Crypto
import LecternModel

/// The speaker notes kept with one upload (docs/protocol.md §20.2): the file's own — read
/// from a `.pdfpc` file, per page, with what it says about the talk — and the notes typed
/// on devices, each author's apart (an upload is stored once per content, whoever uploads
/// it: a second presenter of the same PDF neither reads nor replaces the first's typed
/// notes). Kept by the service next to the upload (`<id>.notes.json`). Annotation notes
/// are not here: they are the PDF's own, read when it is stored.
public struct DeckNotes: Codable, Equatable, Sendable {
    /// Page number (1-based, as a string: JSON keys) → note: the file's notes (a `.pdfpc`
    /// file's; before typed notes had authors, typed ones too).
    public var pages: [String: String] = [:]
    /// Author (`author(of:)`) → page (as in `pages`) → note typed on that author's device.
    /// Absent in files written before typed notes had authors.
    public var typed: [String: [String: String]]?
    /// The beamer notes layout chosen for this upload (nil: as detected from its pages).
    public var layout: NotesLayout?
    public var durationMinutes: Int?
    public var endTime: String?
    public var lastMinutes: Int?

    /// At most this many authors keep typed notes with one upload (a new one past it gets
    /// `notesTooLarge`): the file beside the upload stays bounded.
    public static let maxAuthors = 16

    public init(pages: [Int: String] = [:], layout: NotesLayout? = nil, durationMinutes: Int? = nil, endTime: String? = nil, lastMinutes: Int? = nil) {
        for (k, v) in pages where !v.isEmpty { self.pages[String(k)] = v }
        self.layout = layout
        self.durationMinutes = durationMinutes
        self.endTime = endTime
        self.lastMinutes = lastMinutes
    }

    /// The file's note of `page`.
    public subscript(page: Int) -> String? {
        get { pages[String(page)] }
        set {
            if let v = newValue, !v.isEmpty { pages[String(page)] = v } else { pages[String(page)] = nil }
        }
    }

    /// The note `author` typed for `page`.
    public func typed(page: Int, by author: String) -> String? { typed?[author]?[String(page)] }

    /// Sets (or with nil or "", removes) the note `author` typed for `page`.
    public mutating func setTyped(_ text: String?, page: Int, by author: String) {
        var mine = typed?[author] ?? [:]
        if let t = text, !t.isEmpty { mine[String(page)] = t } else { mine[String(page)] = nil }
        var all = typed ?? [:]
        all[author] = mine.isEmpty ? nil : mine
        typed = all.isEmpty ? nil : all
    }

    /// Removes every note `author` typed (a `.pdfpc` file they attach replaces them).
    public mutating func removeTyped(by author: String) {
        typed?[author] = nil
        if typed?.isEmpty == true { typed = nil }
    }

    /// Authors with typed notes.
    public var authors: Int { typed?.count ?? 0 }

    /// UTF-8 bytes of the file's notes together.
    public var textBytes: Int { pages.values.reduce(0) { $0 + $1.utf8.count } }

    /// UTF-8 bytes of what `author` reads: the file's notes and their own typed ones
    /// (bounded by `ConsoleLimits.maxDeckNotesBytes`).
    public func textBytes(for author: String) -> Int {
        textBytes + (typed?[author]?.values.reduce(0) { $0 + $1.utf8.count } ?? 0)
    }

    public var isEmpty: Bool { pages.isEmpty && typed == nil }

    /// The key under which a device's typed notes are kept: a digest of its resume token
    /// (the device's secret, the same across its reconnects), never the token itself.
    public static func author(of token: ResumeToken) -> String {
        hexString(Array(SHA256.hash(data: Array("lectern typed notes".utf8) + token.bytes).prefix(16)))
    }
}
