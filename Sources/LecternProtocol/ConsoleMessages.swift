import Foundation
import LecternModel

// The presenter console's messages and state (docs/protocol.md §20): speaker notes,
// slide labels, the talk timer.

/// Limits of the presenter console (docs/protocol.md §20.6).
public enum ConsoleLimits {
    /// Longest note of one page, in UTF-8 bytes.
    public static let maxNoteBytes = 16 * 1024
    /// Longest notes of one deck, all pages together, in UTF-8 bytes.
    public static let maxDeckNotesBytes = 512 * 1024
    /// Largest `.pdfpc` file notes-file carries.
    public static let maxNotesFileBytes = 512 * 1024
    /// Longest label goto-label carries, in UTF-8 bytes.
    public static let maxLabelBytes = 64
    /// Longest talk a timer counts down from or to: 24 hours.
    public static let maxTimerMs: UInt64 = 24 * 3600 * 1000
    /// The shortest countdown (§20.4): one second.
    public static let minTimerMs: UInt64 = 1000
    /// Warning minutes a timer accepts.
    public static let warnMinutes: ClosedRange<Int> = 0...120
}

/// notes-request (0x60): the notes of one page of an upload, or of every page (page 0).
public struct NotesRequest: Equatable, Sendable {
    public var content: ContentID
    public var page: UInt32
    public init(content: ContentID, page: UInt32) {
        self.content = content
        self.page = page
    }
}

/// notes (0x61): the answer to notes-request, as JSON.
public struct NotesReply: Codable, Equatable, Sendable {
    public struct Page: Codable, Equatable, Sendable {
        /// 1-based page number.
        public var page: Int
        /// The page's label ("7", "iv").
        public var label: String
        /// The note; "" when the page has none.
        public var text: String
        /// Where the note came from: "typed" (edited on a device or from a .pdfpc file),
        /// "annotation" (the PDF's own text annotations) or "none".
        public var source: String
        public init(page: Int, label: String, text: String, source: String) {
            self.page = page
            self.label = label
            self.text = text
            self.source = source
        }
    }
    public var content: String
    /// Where beamer notes sit on the pages ("none", "right", "left", "top", "bottom").
    public var layout: NotesLayout
    public var pages: [Page]
    /// The talk's length and end from the .pdfpc file, when it gave them.
    public var durationMinutes: Int?
    public var endTime: String?
    public var lastMinutes: Int?
    public init(content: String, layout: NotesLayout, pages: [Page], durationMinutes: Int? = nil, endTime: String? = nil, lastMinutes: Int? = nil) {
        self.content = content
        self.layout = layout
        self.pages = pages
        self.durationMinutes = durationMinutes
        self.endTime = endTime
        self.lastMinutes = lastMinutes
    }
    enum CodingKeys: String, CodingKey { case content, layout, pages, durationMinutes, endTime, lastMinutes }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(content, forKey: .content)
        try c.encode(layout, forKey: .layout)
        try c.encode(pages, forKey: .pages)
        try c.encode(durationMinutes, forKey: .durationMinutes)
        try c.encode(endTime, forKey: .endTime)
        try c.encode(lastMinutes, forKey: .lastMinutes)
    }
}

/// notes-edit (0x62): replaces the note of one page ("" removes it).
public struct NotesEdit: Equatable, Sendable {
    public var content: ContentID
    public var page: UInt32
    public var text: String
    public init(content: ContentID, page: UInt32, text: String) {
        self.content = content
        self.page = page
        self.text = text
    }
}

/// timer (0x64): steers the talk timer.
public struct TimerCommand: Equatable, Sendable {
    public enum Action: UInt8, Sendable { case start = 1, pause = 2, reset = 3, set = 4 }
    public enum Mode: UInt8, Sendable { case keep = 0, elapsed = 1, countdown = 2, endTime = 3 }
    public var action: Action
    public var mode: Mode
    /// Minutes before the end the timer warns (0xFFFF: keep as it is).
    public var warnMinutes: UInt16
    /// countdown: the talk's length in ms; endTime: when it ends, ms since 1970 (UTC); else 0.
    public var value: UInt64
    public init(action: Action, mode: Mode = .keep, warnMinutes: UInt16 = 0xFFFF, value: UInt64 = 0) {
        self.action = action
        self.mode = mode
        self.warnMinutes = warnMinutes
        self.value = value
    }
}

/// The presenter console's part of the state (`console`).
public struct ConsoleSnapshot: Codable, Equatable, Sendable {
    /// The slide on screen as people number it, or null when no PDF page is shown.
    public var slide: SlideSnapshot?
    /// Where beamer notes sit on the pages of the deck on screen ("none" for an ordinary deck).
    public var notesLayout: NotesLayout
    /// Whether the deck on screen has any notes (typed, from a .pdfpc file or annotations).
    public var hasNotes: Bool
    /// Goes up by one whenever any deck's notes change (a client showing notes asks again).
    public var notesRevision: UInt64
    /// Next on the last page goes to the first (config `wrap_around`).
    public var wrap: Bool
    public var timer: TimerSnapshot
    public init(slide: SlideSnapshot?, notesLayout: NotesLayout, hasNotes: Bool, notesRevision: UInt64, wrap: Bool, timer: TimerSnapshot) {
        self.slide = slide
        self.notesLayout = notesLayout
        self.hasNotes = hasNotes
        self.notesRevision = notesRevision
        self.wrap = wrap
        self.timer = timer
    }
    enum CodingKeys: String, CodingKey { case slide, notesLayout, hasNotes, notesRevision, wrap, timer }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(slide, forKey: .slide)
        try c.encode(notesLayout, forKey: .notesLayout)
        try c.encode(hasNotes, forKey: .hasNotes)
        try c.encode(notesRevision, forKey: .notesRevision)
        try c.encode(wrap, forKey: .wrap)
        try c.encode(timer, forKey: .timer)
    }
}

/// "slide 7 of 20, step 2 of 3": the page on screen by its label, beamer overlays grouped.
public struct SlideSnapshot: Codable, Equatable, Sendable {
    public var label: String
    /// 1-based slide (a run of consecutive pages with one label is one slide).
    public var index: Int
    public var count: Int
    /// 1-based step within the slide, and the slide's steps.
    public var step: Int
    public var steps: Int
    public init(label: String, index: Int, count: Int, step: Int, steps: Int) {
        self.label = label
        self.index = index
        self.count = count
        self.step = step
        self.steps = steps
    }
}

/// The talk timer as every device sees it.
public struct TimerSnapshot: Codable, Equatable, Sendable {
    public enum Mode: String, Codable, Sendable { case elapsed, countdown, endTime }
    public var mode: Mode
    public var running: Bool
    /// Time talked so far (paused time not counted).
    public var elapsedMs: UInt64
    /// countdown: the talk's length; else null.
    public var durationMs: UInt64?
    /// endTime: when the talk ends, ms since 1970 (UTC); else null.
    public var endsAtMs: UInt64?
    /// countdown and endTime: time left (negative: over time); elapsed: null.
    public var remainingMs: Int64?
    /// In the last `warnMinutes` (or over time).
    public var warning: Bool
    public var warnMinutes: Int
    /// The appliance's clock when this state was made, ms since 1970 (UTC): the time of day,
    /// and where a device counts on from while `running`.
    public var serverTimeMs: UInt64
    public init(
        mode: Mode, running: Bool, elapsedMs: UInt64, durationMs: UInt64?, endsAtMs: UInt64?, remainingMs: Int64?, warning: Bool,
        warnMinutes: Int, serverTimeMs: UInt64
    ) {
        self.mode = mode
        self.running = running
        self.elapsedMs = elapsedMs
        self.durationMs = durationMs
        self.endsAtMs = endsAtMs
        self.remainingMs = remainingMs
        self.warning = warning
        self.warnMinutes = warnMinutes
        self.serverTimeMs = serverTimeMs
    }
    enum CodingKeys: String, CodingKey { case mode, running, elapsedMs, durationMs, endsAtMs, remainingMs, warning, warnMinutes, serverTimeMs }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mode, forKey: .mode)
        try c.encode(running, forKey: .running)
        try c.encode(elapsedMs, forKey: .elapsedMs)
        try c.encode(durationMs, forKey: .durationMs)
        try c.encode(endsAtMs, forKey: .endsAtMs)
        try c.encode(remainingMs, forKey: .remainingMs)
        try c.encode(warning, forKey: .warning)
        try c.encode(warnMinutes, forKey: .warnMinutes)
        try c.encode(serverTimeMs, forKey: .serverTimeMs)
    }
}

extension NotesLayout {
    /// The byte notes-layout carries (0xFF: detect from the pages' shape).
    public var wireValue: UInt8 {
        switch self {
        case .none: 0
        case .right: 1
        case .left: 2
        case .top: 3
        case .bottom: 4
        }
    }
    public init?(wireValue: UInt8) {
        switch wireValue {
        case 0: self = .none
        case 1: self = .right
        case 2: self = .left
        case 3: self = .top
        case 4: self = .bottom
        default: return nil
        }
    }
}

/// The presenter console's bodies (0x60–0x66, docs/protocol.md §20), each encoder beside its decoder.
extension Body {
    // notes-request (0x60)
    static func notesRequest(_ n: NotesRequest, _ w: inout ByteWriter) { w.bytes(n.content.bytes); w.u32(n.page) }
    static func notesRequest(_ r: inout ByteReader) throws -> NotesRequest {
        let c = try contentID(&r)
        return NotesRequest(content: c, page: try r.u32())
    }

    // notes (0x61): JSON, the whole body
    static func notes(_ n: NotesReply, _ w: inout ByteWriter) {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        w.bytes((try? Array(e.encode(n))) ?? Array("{}".utf8))
    }
    static func notes(_ r: inout ByteReader) throws -> NotesReply {
        do { return try JSONDecoder().decode(NotesReply.self, from: Data(r.rest())) } catch {
            throw WireError.invalid("the notes JSON does not match the schema")
        }
    }

    // notes-edit (0x62): content, page, the note (UTF-8, the rest of the body)
    static func notesEdit(_ e: NotesEdit, _ w: inout ByteWriter) {
        w.bytes(e.content.bytes); w.u32(e.page); w.bytes(Array(e.text.utf8))
    }
    static func notesEdit(_ r: inout ByteReader) throws -> NotesEdit {
        let c = try contentID(&r)
        let page = try r.u32()
        let bytes = r.rest()
        guard bytes.count <= ConsoleLimits.maxNoteBytes else {
            throw WireError.invalid("a note is at most \(ConsoleLimits.maxNoteBytes) bytes")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw WireError.invalid("the note is not UTF-8") }
        return NotesEdit(content: c, page: page, text: text)
    }

    // notes-file (0x63): content, the .pdfpc file (the rest of the body)
    static func notesFile(_ r: inout ByteReader) throws -> Message {
        let c = try contentID(&r)
        let file = r.rest()
        guard file.count <= ConsoleLimits.maxNotesFileBytes else {
            throw WireError.invalid("a notes file is at most \(ConsoleLimits.maxNotesFileBytes) bytes")
        }
        return .notesFile(content: c, file: file)
    }

    // timer (0x64): action, mode, warning minutes, value
    static func timer(_ t: TimerCommand, _ w: inout ByteWriter) {
        w.u8(t.action.rawValue); w.u8(t.mode.rawValue); w.u16(t.warnMinutes); w.u64(t.value)
    }
    static func timer(_ r: inout ByteReader) throws -> TimerCommand {
        let a = try r.u8()
        guard let action = TimerCommand.Action(rawValue: a) else { throw WireError.invalid("timer action \(a) is not 1–4") }
        let m = try r.u8()
        guard let mode = TimerCommand.Mode(rawValue: m) else { throw WireError.invalid("timer mode \(m) is not 0–3") }
        return TimerCommand(action: action, mode: mode, warnMinutes: try r.u16(), value: try r.u64())
    }

    // notes-layout (0x66): content, layout byte
    static func notesLayout(_ r: inout ByteReader) throws -> Message {
        let c = try contentID(&r)
        let b = try r.u8()
        if b == 0xFF { return .notesLayout(content: c, layout: nil) }
        guard let layout = NotesLayout(wireValue: b) else { throw WireError.invalid("notes layout \(b) is not 0–4 or 255") }
        return .notesLayout(content: c, layout: layout)
    }
}
