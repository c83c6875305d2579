import Foundation
import LecternModel

// The audience's messages and state (docs/protocol.md §24): viewers, polls, questions,
// the navigation lock and the download permission.

/// Limits of the audience (docs/protocol.md §24.8).
public enum AudienceLimits {
    /// Text the audience writes (questions, polls, answers) is refused with characters a name
    /// may not have either (`DeviceName.isControl`: controls, bidi overrides, zero-width
    /// marks), line breaks aside: it is drawn on the wall and on every device.
    public static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 != "\n" && DeviceName.isControl($0) }
    }

    /// Viewers at once, on top of the floor's devices.
    public static let maxViewers = 250
    /// Longest poll question and audience question, in UTF-8 bytes.
    public static let maxQuestionBytes = 300
    /// Longest answer of a multiple-choice poll, in UTF-8 bytes.
    public static let maxChoiceBytes = 100
    /// Longest open-text answer, in UTF-8 bytes.
    public static let maxTextAnswerBytes = 200
    /// Answers of a multiple-choice poll: A–F.
    public static let choices: ClosedRange<Int> = 2...6
    /// Polls kept in one meeting.
    public static let maxPolls = 50
    /// Audience questions kept in one meeting.
    public static let maxQuestions = 200
    /// Questions one device may have asked in one meeting.
    public static let maxQuestionsPerDevice = 10
    /// Seconds a device waits between two questions.
    public static let questionIntervalSeconds: Double = 10
    /// Open-text answers the presenter may pick to show.
    public static let maxPicks = 12
    /// Polls prepared with one deck (§24.3).
    public static let maxPreparedPerDeck = 20
    /// Decks with prepared polls kept.
    public static let maxPreparedDecks = 200
    /// Largest poll-prepare body (the JSON list), in bytes.
    public static let maxPrepareBytes = 32 * 1024
    /// Devices that may answer one poll (4 × the viewer limit, as the identities kept).
    public static let maxAnswersPerPoll = 1000
    /// Open-text answers' bytes kept for one poll (UTF-8, in all).
    public static let maxTextBytesPerPoll = 64 * 1024
    /// Questions the state carries (the first of the ranking); the rest by audience-fetch.
    public static let stateQuestions = 50
    /// Open-text answers the presenters' state carries (the newest); the rest by audience-fetch.
    public static let stateTexts = 50
    /// Items one audience-fetch returns at most.
    public static let maxFetch = 200
    /// New viewer identities one address gets at once (config `audience_new_per_address`);
    /// then one more every `newViewerSeconds`. A known token costs nothing.
    public static let newViewersPerAddress = 40
    public static let newViewerSeconds: Double = 3
}

/// poll-ask (0x80): a poll asked on the spot.
public struct PollDraft: Codable, Equatable, Sendable {
    public enum Kind: String, Codable, Sendable { case choice, yesno, text }
    public var question: String
    public var kind: Kind
    /// The answers of a `choice` poll (2–6, shown as A–F); yes/no: ["Yes", "No"]; text: [].
    public var answers: [String]
    /// 0-based index of the correct answer, if one is marked.
    public var correct: Int?
    public init(question: String, kind: Kind, answers: [String] = [], correct: Int? = nil) {
        self.question = question
        self.kind = kind
        self.answers = kind == .yesno ? ["Yes", "No"] : answers
        self.correct = correct
    }
}

/// poll-answer (0x81): one device's answer (a choice, or text for an open question).
public enum PollAnswer: Codable, Equatable, Sendable {
    case choice(Int)
    case text(String)
}

/// poll-show (0x83): what of a poll the wall and the viewers see.
public struct PollShow: Equatable, Sendable {
    public var poll: UInt32
    public var results: Bool
    public var answer: Bool
    /// Open-text answers (0-based, in the order of the state's `texts`) put on the wall.
    public var picks: [Int]
    public init(poll: UInt32, results: Bool, answer: Bool, picks: [Int] = []) {
        self.poll = poll
        self.results = results
        self.answer = answer
        self.picks = picks
    }
}

/// question-mark (0x86): the presenter's or moderator's action on an audience question.
public enum QuestionAction: UInt8, Sendable {
    case answered = 1, showOnWall = 2, offWall = 3, hide = 4
}

/// audience-set (0x87): the room's audience switches.
public enum AudienceSetting: UInt8, Sendable {
    case lock = 1, unlock = 2, allowDownload = 3, revokeDownload = 4, endMeeting = 5
}

/// The audience's part of the state (`audience`). What a viewer receives is filtered:
/// results only once shown, the correct answer only once revealed, hidden questions never.
public struct AudienceSnapshot: Codable, Equatable, Sendable {
    /// Viewers connected now.
    public var viewers: Int
    /// Locked: viewers follow the wall. Unlocked: they may browse the deck on screen.
    public var locked: Bool
    /// Viewers may download the deck on screen.
    public var download: Bool
    /// While they may and a PDF is on the wall: the web remote's address of the deck
    /// ("/download/<token>"); null otherwise.
    public var downloadURL: String?
    /// While a page of a PDF is on the wall (not blanked, no clip): its image's address
    /// without width and key ("/page/<content>/<page>"); a device appends "/<width>?k=<key>"
    /// (§24.2). Null otherwise: no image.
    public var pageImage: String?
    /// The polls prepared with the deck on the wall (§24.3): for the presenters and the
    /// moderator; null for viewers (they see a poll once it is asked) and when no deck is shown.
    public var prepared: [PollDraft]?
    /// The newest poll (open or closed), or null.
    public var poll: PollSnapshot?
    /// Audience questions, most votes first (then oldest first): the first
    /// `AudienceLimits.stateQuestions` of them; the rest by audience-fetch (§24.6).
    public var questions: [QuestionSnapshot]
    /// How many questions there are in all (that this client may see).
    public var questionCount: Int?
    /// The question shown on the wall, or null.
    public var wallQuestion: UInt32?
    public init(
        viewers: Int, locked: Bool, download: Bool, downloadURL: String? = nil, pageImage: String? = nil, poll: PollSnapshot?, questions: [QuestionSnapshot],
        wallQuestion: UInt32?
    ) {
        self.pageImage = pageImage
        self.prepared = nil
        self.viewers = viewers
        self.locked = locked
        self.download = download
        self.downloadURL = downloadURL
        self.poll = poll
        self.questions = questions
        self.questionCount = questions.count
        self.wallQuestion = wallQuestion
    }
    enum CodingKeys: String, CodingKey { case viewers, locked, download, downloadURL, pageImage, prepared, poll, questions, questionCount, wallQuestion }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(viewers, forKey: .viewers)
        try c.encode(locked, forKey: .locked)
        try c.encode(download, forKey: .download)
        try c.encode(downloadURL, forKey: .downloadURL)
        try c.encode(pageImage, forKey: .pageImage)
        try c.encode(prepared, forKey: .prepared)
        try c.encode(poll, forKey: .poll)
        try c.encode(questions, forKey: .questions)
        try c.encode(questionCount ?? questions.count, forKey: .questionCount)
        try c.encode(wallQuestion, forKey: .wallQuestion)
    }
}

/// viewer-pointer (0x88, server): where someone with the floor points on the live page, for
/// viewers; at most `rateHz` a second (the newest position wins), `lifted` when the finger left.
public struct ViewerPointer: Equatable, Sendable {
    public static let rateHz = 20
    public var page: UInt32
    public var point: InkPoint
    public var lifted: Bool
    public init(page: UInt32, point: InkPoint, lifted: Bool) {
        self.page = page
        self.point = point
        self.lifted = lifted
    }
}

public struct PollSnapshot: Codable, Equatable, Sendable {
    public var id: UInt32
    public var question: String
    public var kind: PollDraft.Kind
    public var answers: [String]
    public var open: Bool
    public var showResults: Bool
    public var showAnswer: Bool
    /// Index of the correct answer: for the presenter and moderator always, for viewers once revealed.
    public var correct: Int?
    /// Devices that answered (for viewers 0 until the results are shown).
    public var total: Int
    /// Count per answer: for the presenter and moderator always, for viewers once shown; else null.
    public var counts: [Int]?
    /// Open-text answers: for the presenter and moderator the newest
    /// `AudienceLimits.stateTexts` of them (oldest first, from `textsFrom`), the rest by
    /// audience-fetch; for viewers only those the presenter picked, once shown. Never with
    /// who wrote them.
    public var texts: [String]?
    /// Open-text answers in all, and the index of the first one in `texts` (presenters and
    /// moderator; null for viewers and choice polls).
    public var textCount: Int?
    public var textsFrom: Int?
    /// The picked open-text answers (indices into the presenter's `texts`).
    public var picks: [Int]
    public init(
        id: UInt32, question: String, kind: PollDraft.Kind, answers: [String], open: Bool, showResults: Bool, showAnswer: Bool,
        correct: Int?, total: Int, counts: [Int]?, texts: [String]?, picks: [Int]
    ) {
        self.id = id
        self.question = question
        self.kind = kind
        self.answers = answers
        self.open = open
        self.showResults = showResults
        self.showAnswer = showAnswer
        self.correct = correct
        self.total = total
        self.counts = counts
        self.texts = texts
        self.picks = picks
    }
    enum CodingKeys: String, CodingKey {
        case id, question, kind, answers, open, showResults, showAnswer, correct, total, counts, texts, textCount, textsFrom, picks
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(question, forKey: .question)
        try c.encode(kind, forKey: .kind)
        try c.encode(answers, forKey: .answers)
        try c.encode(open, forKey: .open)
        try c.encode(showResults, forKey: .showResults)
        try c.encode(showAnswer, forKey: .showAnswer)
        try c.encode(correct, forKey: .correct)
        try c.encode(total, forKey: .total)
        try c.encode(counts, forKey: .counts)
        try c.encode(texts, forKey: .texts)
        try c.encode(textCount, forKey: .textCount)
        try c.encode(textsFrom, forKey: .textsFrom)
        try c.encode(picks, forKey: .picks)
    }
}

public struct QuestionSnapshot: Codable, Equatable, Sendable {
    public var id: UInt32
    public var text: String
    /// The asker's name when they chose to give it; else null (anonymous).
    public var name: String?
    public var votes: Int
    public var answered: Bool
    /// Hidden by the presenter or moderator (only they see hidden questions).
    public var hidden: Bool
    public init(id: UInt32, text: String, name: String?, votes: Int, answered: Bool, hidden: Bool) {
        self.id = id
        self.text = text
        self.name = name
        self.votes = votes
        self.answered = answered
        self.hidden = hidden
    }
    enum CodingKeys: String, CodingKey { case id, text, name, votes, answered, hidden }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(text, forKey: .text)
        try c.encode(name, forKey: .name)
        try c.encode(votes, forKey: .votes)
        try c.encode(answered, forKey: .answered)
        try c.encode(hidden, forKey: .hidden)
    }
}

// MARK: bodies

extension Body {
    // poll-ask (0x80): the draft as JSON
    static func pollAsk(_ d: PollDraft, _ w: inout ByteWriter) {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        w.bytes((try? Array(e.encode(d))) ?? [])
    }
    static func pollAsk(_ r: inout ByteReader) throws -> PollDraft {
        let json = r.rest()
        guard json.count <= 4096 else { throw WireError.invalid("a poll is at most 4096 bytes of JSON") }
        do { return try JSONDecoder().decode(PollDraft.self, from: Data(json)) } catch {
            throw WireError.invalid("the poll is not JSON of the form {question, kind, answers, correct}")
        }
    }

    // poll-answer (0x81): u32 poll (0: the newest), u8 choice (0xFF: text), string16 text
    static func pollAnswer(_ poll: UInt32, _ a: PollAnswer, _ w: inout ByteWriter) {
        w.u32(poll)
        switch a {
        case .choice(let i): w.u8(UInt8(clamping: i)); w.string16("")
        case .text(let t): w.u8(0xFF); w.string16(t)
        }
    }
    static func pollAnswer(_ r: inout ByteReader) throws -> Message {
        let poll = try r.u32()
        let choice = try r.u8()
        let text = try r.string16(max: 1024, field: "answer")
        return .pollAnswer(poll: poll, choice == 0xFF ? .text(text) : .choice(Int(choice)))
    }

    // poll-show (0x83): u32 poll, u8 flags (1 results, 2 answer), u8 n, n × u16 picks
    static func pollShow(_ s: PollShow, _ w: inout ByteWriter) {
        w.u32(s.poll)
        w.u8((s.results ? 1 : 0) | (s.answer ? 2 : 0))
        let picks = s.picks.prefix(255)
        w.u8(UInt8(picks.count))
        for p in picks { w.u16(UInt16(clamping: p)) }
    }
    static func pollShow(_ r: inout ByteReader) throws -> PollShow {
        let poll = try r.u32()
        let flags = try r.u8()
        let n = try r.u8()
        var picks: [Int] = []
        for _ in 0..<n { picks.append(Int(try r.u16())) }
        return PollShow(poll: poll, results: flags & 1 != 0, answer: flags & 2 != 0, picks: picks)
    }

    // question-ask (0x84): u8 flags (1: with my name), string16 text
    static func questionAsk(_ text: String, _ named: Bool, _ w: inout ByteWriter) { w.u8(named ? 1 : 0); w.string16(text) }
    static func questionAsk(_ r: inout ByteReader) throws -> Message {
        let flags = try r.u8()
        return .questionAsk(text: try r.string16(max: 4096, field: "question"), named: flags & 1 != 0)
    }

    // question-mark (0x86): u32 id, u8 action
    static func questionMark(_ r: inout ByteReader) throws -> Message {
        let id = try r.u32()
        let a = try r.u8()
        guard let action = QuestionAction(rawValue: a) else { throw WireError.invalid("question action \(a) is not 1–4") }
        return .questionMark(id: id, action)
    }

    // viewer-pointer (0x88): u8 flags (1 lifted), u8 0, u16 x, u16 y, u32 page
    static func viewerPointer(_ p: ViewerPointer, _ w: inout ByteWriter) {
        w.u8(p.lifted ? 1 : 0); w.u8(0); w.u16(p.point.x); w.u16(p.point.y); w.u32(p.page)
    }
    static func viewerPointer(_ r: inout ByteReader) throws -> ViewerPointer {
        let flags = try r.u8()
        _ = try r.u8()
        let x = try r.u16(), y = try r.u16()
        return ViewerPointer(page: try r.u32(), point: InkPoint(x: x, y: y), lifted: flags & 1 != 0)
    }

    // poll-prepare (0x89): 32-byte content id, then the drafts as a JSON array
    static func pollPrepare(_ content: ContentID, _ drafts: [PollDraft], _ w: inout ByteWriter) {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        w.bytes(content.bytes)
        w.bytes((try? Array(e.encode(drafts))) ?? [])
    }
    static func pollPrepare(_ r: inout ByteReader) throws -> Message {
        guard let content = ContentID(bytes: try r.bytes(32)) else { throw WireError.invalid("content id") }
        let json = r.rest()
        guard json.count <= AudienceLimits.maxPrepareBytes else { throw WireError.invalid("prepared polls are at most \(AudienceLimits.maxPrepareBytes) bytes of JSON") }
        do { return .pollPrepare(content: content, try JSONDecoder().decode([PollDraft].self, from: Data(json))) } catch {
            throw WireError.invalid("prepared polls are a JSON array of {question, kind, answers, correct}")
        }
    }

    // poll-ask-prepared (0x8A): 32-byte content id (zeros: the deck on the wall), u16 index (0-based)
    static func pollAskPrepared(_ r: inout ByteReader) throws -> Message {
        let bytes = try r.bytes(32)
        let index = Int(try r.u16())
        return .pollAskPrepared(content: bytes.allSatisfy { $0 == 0 } ? nil : ContentID(bytes: bytes), index: index)
    }

    // audience-set (0x87): u8 setting
    static func audienceSet(_ r: inout ByteReader) throws -> Message {
        let a = try r.u8()
        guard let s = AudienceSetting(rawValue: a) else { throw WireError.invalid("audience setting \(a) is not 1–5") }
        return .audienceSet(s)
    }
}
