import Foundation
import LecternModel

/// pdfpc's notes file (`talk.pdfpc` next to `talk.pdf`), read and written. Two formats:
/// - JSON (pdfpc 4.4 and later): `{"pdfpcFormat": 2, "duration": 20, "endTime": "14:30",
///   "lastMinutes": 5, "notesPosition": "right", "pages": [{"idx": 0, "label": "1",
///   "overlay": 0, "note": "…"}, …]}` — `idx` is the 0-based page;
/// - the older text format: sections `[duration]`, `[end_time]`, `[last_minutes]`,
///   `[notes_position]` and `[notes]` with `### 7` headings numbering *slides* (overlays
///   grouped), each followed by its note.
/// Pure: bytes in, `DeckNotes` out, matched to the deck's page labels.
public enum PdfpcFile {
    /// Reads a `.pdfpc` file for a deck numbered `numbering`. Throws `badNotesFile` when it
    /// is not a pdfpc file or is for another deck (a page or slide past the deck's end, or
    /// page labels that disagree with the deck's on most pages).
    public static func read(_ bytes: [UInt8], for numbering: SlideNumbering) throws(LecternError) -> DeckNotes {
        guard bytes.count <= ConsoleLimits.maxNotesFileBytes else { throw .notesTooLarge(limit: ConsoleLimits.maxNotesFileBytes) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .badNotesFile("it is not UTF-8 text.") }
        let notes: DeckNotes
        if text.drop(while: { $0.isWhitespace }).first == "{" {
            notes = try readJSON(text, numbering)
        } else {
            notes = try readText(text, numbering)
        }
        guard notes.textBytes <= ConsoleLimits.maxDeckNotesBytes else { throw .notesTooLarge(limit: ConsoleLimits.maxDeckNotesBytes) }
        return notes
    }

    private static func readJSON(_ text: String, _ numbering: SlideNumbering) throws(LecternError) -> DeckNotes {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: Data(text.utf8)) } catch { throw .badNotesFile("it is not valid JSON.") }
        guard let root = object as? [String: Any] else { throw .badNotesFile("it is not a pdfpc JSON object.") }
        guard root["pdfpcFormat"] != nil || root["pages"] != nil else { throw .badNotesFile("it has neither pdfpcFormat nor pages.") }
        var notes = DeckNotes()
        notes.durationMinutes = (root["duration"] as? NSNumber).map { max(0, min($0.intValue, 24 * 60)) }.flatMap { $0 > 0 ? $0 : nil }
        notes.endTime = (root["endTime"] as? String).flatMap(clockTime)
        notes.lastMinutes = (root["lastMinutes"] as? NSNumber).map { max(0, min($0.intValue, ConsoleLimits.warnMinutes.upperBound)) }
        notes.layout = (root["notesPosition"] as? String).flatMap { NotesLayout(rawValue: $0.lowercased()) }
        let pages = root["pages"] as? [Any] ?? []
        var labelsSeen = 0, labelsMatching = 0
        for case let p as [String: Any] in pages {
            guard let idx = (p["idx"] as? NSNumber)?.intValue else { continue }
            guard idx >= 0, idx < numbering.pageCount else {
                throw .badNotesFile("it has notes for page \(idx + 1), and this deck has \(numbering.pageCount) pages — is it for another file?")
            }
            if let label = p["label"] as? String ?? (p["label"] as? NSNumber)?.stringValue {
                labelsSeen += 1
                if label == numbering.labels[idx] { labelsMatching += 1 }
            }
            if let note = p["note"] as? String, !note.isEmpty {
                guard note.utf8.count <= ConsoleLimits.maxNoteBytes else { throw .notesTooLarge(limit: ConsoleLimits.maxNoteBytes) }
                notes[idx + 1] = note
            }
        }
        if labelsSeen >= 2, labelsMatching * 2 < labelsSeen {
            throw .badNotesFile("its slide labels don't match this deck's — is it for another file?")
        }
        return notes
    }

    private static func readText(_ text: String, _ numbering: SlideNumbering) throws(LecternError) -> DeckNotes {
        var notes = DeckNotes()
        var section = ""
        var slide: Int?
        var current: [Substring] = []
        var sawSection = false
        func flush() throws(LecternError) {
            defer { current = [] }
            guard let s = slide else { return }
            let note = current.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !note.isEmpty else { return }
            guard let page = numbering.firstPage(ofSlide: s) else {
                throw .badNotesFile("it has notes for slide \(s), and this deck has \(numbering.slideCount) slides — is it for another file?")
            }
            guard note.utf8.count <= ConsoleLimits.maxNoteBytes else { throw .notesTooLarge(limit: ConsoleLimits.maxNoteBytes) }
            notes[page] = note
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let l = line.trimmingCharacters(in: .whitespaces)
            if section == "notes" {
                if l.hasPrefix("### ") || l == "###" {
                    try flush()
                    guard let n = Int(l.dropFirst(3).trimmingCharacters(in: .whitespaces)), n >= 1 else {
                        throw .badNotesFile("“\(l.prefix(40))” is not a slide heading.")
                    }
                    slide = n
                } else {
                    current.append(line)
                }
                continue
            }
            if l.hasPrefix("[") && l.hasSuffix("]") {
                section = String(l.dropFirst().dropLast()).lowercased()
                if Self.textSections.contains(section) { sawSection = true }
                continue
            }
            guard !l.isEmpty else { continue }
            switch section {
            case "duration": notes.durationMinutes = Int(l).map { max(0, min($0, 24 * 60)) }.flatMap { $0 > 0 ? $0 : nil }
            case "end_time": notes.endTime = clockTime(l)
            case "last_minutes": notes.lastMinutes = Int(l).map { max(0, min($0, ConsoleLimits.warnMinutes.upperBound)) }
            case "notes_position": notes.layout = NotesLayout(rawValue: l.lowercased())
            default: break
            }
        }
        try flush()
        guard sawSection else { throw .badNotesFile("it is neither pdfpc JSON nor pdfpc's older [notes] text.") }
        return notes
    }

    /// The sections of pdfpc's older text format.
    static let textSections: Set<String> = [
        "file", "skip", "duration", "end_time", "start_time", "last_minutes", "end_user_slide", "notes_position", "font_size", "notes",
    ]

    /// "14:30" as it is, or nil for anything that is not a time of day.
    static func clockTime(_ s: String) -> String? {
        let parts = s.split(separator: ":")
        guard parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]), (0..<24).contains(h), (0..<60).contains(m) else { return nil }
        return String(format: "%02d:%02d", h, m)
    }

    /// The notes as a pdfpc JSON file (format 2), for pdfpc or another Lectern.
    public static func write(_ reply: NotesReply) -> [UInt8] {
        var pages: [[String: Any]] = []
        var previous: String?
        var overlay = 0
        for p in reply.pages {
            overlay = p.label == previous ? overlay + 1 : 0
            previous = p.label
            var entry: [String: Any] = ["idx": p.page - 1, "label": p.label, "overlay": overlay]
            if p.source == "typed", !p.text.isEmpty { entry["note"] = p.text }
            pages.append(entry)
        }
        var root: [String: Any] = ["pdfpcFormat": 2, "disableMarkdown": true, "pages": pages]
        if let d = reply.durationMinutes { root["duration"] = d }
        if let e = reply.endTime { root["endTime"] = e }
        if let l = reply.lastMinutes { root["lastMinutes"] = l }
        if reply.layout != .none { root["notesPosition"] = reply.layout.rawValue }
        let data = (try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys])) ?? Data("{}".utf8)
        return Array(data) + [0x0A]
    }
}
