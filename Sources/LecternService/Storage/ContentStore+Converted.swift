import Foundation
import LecternModel
import LecternSystem
import LecternPipeline
import LecternProtocol
import LecternRoom

/// Converted decks in the store (docs/protocol.md §30.2): the original as uploaded under
/// its SHA-256 (`<id>`, what the client hashed), its description (`<id>.json`, kind "pdf",
/// `convertedFrom`) written at once, and the PDF (`<id>.pdf`) once a converter made it
/// and the bounded child (`DeckProbe`) read it. All three survive a restart; an original
/// without its PDF is converted again after one, and a converted deck is never converted
/// again (a second showing, another upload of the same file).
extension ContentStore {
    /// Moves a verified original (`tmpFile`, on the same file system) into the store as a
    /// deck to convert from `format`. Written and fsynced before the uploader is told it is
    /// stored.
    public func storeOriginal(tmpFile: String, id: String, name: String, uploader: String, format: String) throws -> Item {
        try AtomicFile.fsync(path: tmpFile)
        let size = (try FileManager.default.attributesOfItem(atPath: tmpFile)[.size] as? NSNumber)?.int64Value ?? 0
        let item = Item(id: id, name: name, kind: .pdf, size: size, pages: 0, uploader: uploader, convertedFrom: format)
        guard rename(tmpFile, path(of: id)) == 0 else {
            throw ContentError.unreadable(path: name, reason: String(cString: strerror(errno)))
        }
        try AtomicFile.write(JSONEncoder().encode(item), to: path(of: id) + ".json")
        AtomicFile.fsync(directory: directory.path)
        return item
    }

    /// The converter's PDF for upload `id` (`pdf`, on the same file system): read in the
    /// bounded child like any uploaded PDF (a converter's output is hostile too), then kept
    /// as `<id>.pdf` with the facts in the description and the document's speaker notes as
    /// the deck's notes from the file.
    /// More than `maxPages` pages: `TooManyPages`, nothing kept.
    public func adoptConverted(id: String, pdf: String, notes: [Int: String], maxPages: Int = .max) throws -> Item {
        guard var item = item(id), item.convertedFrom != nil else {
            throw ContentError.unreadable(path: String(id.prefix(12)), reason: "no such upload")
        }
        let (facts, rule) = try check(pdf, name: item.name)
        if facts.pageCount > maxPages { throw TooManyPages(pages: facts.pageCount) }
        try AtomicFile.fsync(path: pdf)
        guard rename(pdf, path(of: id) + ".pdf") == 0 else {
            throw ContentError.unreadable(path: item.name, reason: String(cString: strerror(errno)))
        }
        item.pages = facts.pageCount
        item.deck = DeckFacts(facts)
        item.openChecked = rule
        item.convertedSize = (try FileManager.default.attributesOfItem(atPath: path(of: id) + ".pdf")[.size] as? NSNumber)?.int64Value ?? 0
        try keepConvertedNotes(notes, for: id, pages: item.pages)
        try AtomicFile.write(JSONEncoder().encode(item), to: path(of: id) + ".json")
        AtomicFile.fsync(directory: directory.path)
        // The whole PDF takes the place of its first page (which a render may still hold
        // open: it stays on disk until the upload goes or the service starts again).
        forget(id)
        return item
    }

    /// The first page of a deck still converting (docs/protocol.md §30.8), a complete PDF
    /// of that page alone (`pdf`, on the same file system, out of the converter's reach):
    /// read in the bounded child like any PDF, then kept as `<id>.first.pdf` and shown as
    /// the deck's page 1 until the whole PDF takes its place (`adoptConverted`). The
    /// document's speaker notes are kept with the deck from now on (`pagesInAll`: the
    /// pages they may be on; 0: not known, as many as a converted deck may have).
    /// The description stays that of a deck to convert: a restart converts it again.
    public func adoptFirstPage(id: String, pdf: String, notes: [Int: String], pagesInAll: Int, maxPages: Int = .max) throws -> Item {
        guard var item = item(id), item.awaitsConversion else {
            throw ContentError.unreadable(path: String(id.prefix(12)), reason: "no such upload")
        }
        let (facts, rule) = try check(pdf, name: item.name)
        guard facts.pageCount == 1 else {
            throw ContentError.unreadable(path: item.name, reason: "its first page alone has \(facts.pageCount) pages")
        }
        try AtomicFile.fsync(path: pdf)
        guard rename(pdf, path(of: id) + Self.firstPageSuffix) == 0 else {
            throw ContentError.unreadable(path: item.name, reason: String(cString: strerror(errno)))
        }
        forget(id)
        item.pages = 1
        item.deck = DeckFacts(facts)
        item.openChecked = rule
        try keepConvertedNotes(notes, for: id, pages: pagesInAll > 0 ? min(pagesInAll, maxPages) : maxPages)
        try AtomicFile.write(JSONEncoder().encode(item), to: path(of: id) + ".json")
        AtomicFile.fsync(directory: directory.path)
        return item
    }

    /// A deck's first page alone, beside its original while the rest converts.
    public static let firstPageSuffix = ".first.pdf"

    /// The document's speaker notes kept with the deck, on pages 1…`pages`, bounded as
    /// typed notes are (each note, and the deck's notes together, §20.6); a page that has
    /// notes already (kept with its first page, or typed since) keeps them.
    private func keepConvertedNotes(_ notes: [Int: String], for id: String, pages: Int) throws {
        guard !notes.isEmpty else { return }
        var kept = self.notes(of: id)
        var total = kept.textBytes
        var changed = false
        for (page, text) in notes.sorted(by: { $0.key < $1.key }) where page >= 1 && page <= pages && kept[page] == nil {
            let note = String(decoding: Array(text.utf8.prefix(ConsoleLimits.maxNoteBytes)), as: UTF8.self)
            guard total + note.utf8.count <= ConsoleLimits.maxDeckNotesBytes else { break }
            kept[page] = note
            total += note.utf8.count
            changed = true
        }
        if changed { try saveNotes(kept, for: id) }
    }

    /// A converted PDF with more pages than a converted document may have.
    public struct TooManyPages: Error { public let pages: Int }

    /// Stored originals whose PDF doesn't exist yet (the service stopped while they were
    /// converting or waiting): the room converts them again.
    /// A first page made before the restart goes: it is made again.
    public func unconverted() -> [ContentEntry] {
        items().filter(\.awaitsConversion).map { item in
            unlink(path(of: item.id) + Self.firstPageSuffix)
            return ContentEntry(item)
        }
    }
}
