import Foundation

// What of the audience grows with it (questions, open-text answers) is never pushed whole
// (docs/protocol.md §24.6): the state carries counts and the first or newest few; the
// rest is fetched a page at a time with audience-fetch (0x8B) → audience-page (0x8C).

/// audience-fetch (0x8B, C→S): a page of what the state only summarises.
public struct AudienceFetch: Equatable, Sendable {
    public enum What: UInt8, Sendable {
        /// Audience questions in the state's order (most votes first, then oldest).
        case questions = 1
        /// A poll's open-text answers, oldest first (the presenters and moderator only).
        case texts = 2
    }
    public var what: What
    /// The poll whose answers (0: the current poll); 0 for questions.
    public var poll: UInt32
    /// Index of the first item wanted (0-based).
    public var offset: UInt32
    /// Items wanted: 1 to `AudienceLimits.maxFetch` (0: that many).
    public var count: UInt16
    public init(what: What, poll: UInt32 = 0, offset: UInt32, count: UInt16) {
        self.what = what
        self.poll = poll
        self.offset = offset
        self.count = count
    }
}

/// audience-page (0x8C, S→C): the reply to audience-fetch, UTF-8 JSON.
public struct AudiencePage: Codable, Equatable, Sendable {
    /// "questions" or "texts".
    public var what: String
    /// The poll whose answers these are (null for questions).
    public var poll: UInt32?
    public var offset: Int
    /// How many there are in all (that this client may see).
    public var total: Int
    /// The questions of this page (null for texts).
    public var questions: [QuestionSnapshot]?
    /// The open-text answers of this page (null for questions).
    public var texts: [String]?
    public init(what: String, poll: UInt32?, offset: Int, total: Int, questions: [QuestionSnapshot]?, texts: [String]?) {
        self.what = what
        self.poll = poll
        self.offset = offset
        self.total = total
        self.questions = questions
        self.texts = texts
    }
    enum CodingKeys: String, CodingKey { case what, poll, offset, total, questions, texts }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(what, forKey: .what)
        try c.encode(poll, forKey: .poll)
        try c.encode(offset, forKey: .offset)
        try c.encode(total, forKey: .total)
        try c.encode(questions, forKey: .questions)
        try c.encode(texts, forKey: .texts)
    }
}

extension Body {
    // audience-fetch (0x8B): u8 what (1 questions, 2 texts), u32 poll, u32 offset, u16 count
    static func audienceFetch(_ f: AudienceFetch, _ w: inout ByteWriter) {
        w.u8(f.what.rawValue); w.u32(f.poll); w.u32(f.offset); w.u16(f.count)
    }
    static func audienceFetch(_ r: inout ByteReader) throws -> AudienceFetch {
        let w = try r.u8()
        guard let what = AudienceFetch.What(rawValue: w) else { throw WireError.invalid("audience-fetch what \(w) is not 1–2") }
        return AudienceFetch(what: what, poll: try r.u32(), offset: try r.u32(), count: try r.u16())
    }

    // audience-page (0x8C): the page as JSON
    static func audiencePage(_ p: AudiencePage, _ w: inout ByteWriter) {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        w.bytes((try? Array(e.encode(p))) ?? [])
    }
    static func audiencePage(_ r: inout ByteReader) throws -> AudiencePage {
        do { return try JSONDecoder().decode(AudiencePage.self, from: Data(r.rest())) } catch {
            throw WireError.invalid("audience-page is not JSON of the form {what, poll, offset, total, questions, texts}")
        }
    }
}
