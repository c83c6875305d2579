import LecternProtocol

/// One poll: the question, its answers and what each device answered, keyed by the
/// device's voter key (a hash of its token: no names). Pure.
public struct Poll: Codable, Equatable, Sendable {
    public let id: UInt32
    public let draft: PollDraft
    public var open = true
    public var showResults = false
    public var showAnswer = false
    public var picks: [Int] = []
    /// Voter key → answer; one per device, changeable while open.
    var answers: [String: PollAnswer] = [:]
    /// Open-text answers in the order they first came (a changed one keeps its place).
    var textOrder: [String] = []

    init(id: UInt32, draft: PollDraft) {
        self.id = id
        self.draft = draft
    }

    /// Checks a draft: question 1–300 bytes, 2–6 answers of 1–100 bytes for a choice poll,
    /// a correct index among them.
    static func validate(_ d: PollDraft) throws(LecternError) {
        let q = d.question.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !q.isEmpty else { throw .badPoll("A poll needs a question.") }
        guard d.question.utf8.count <= AudienceLimits.maxQuestionBytes else { throw .tooLong("question", limit: AudienceLimits.maxQuestionBytes) }
        switch d.kind {
        case .choice:
            guard AudienceLimits.choices.contains(d.answers.count) else { throw .badPoll("A multiple-choice poll has 2 to 6 answers (A–F).") }
            for a in d.answers {
                guard !a.trimmingCharacters(in: .whitespaces).isEmpty else { throw .badPoll("An answer can't be empty.") }
                guard a.utf8.count <= AudienceLimits.maxChoiceBytes else { throw .tooLong("answer", limit: AudienceLimits.maxChoiceBytes) }
                guard !AudienceLimits.hasControl(a) else { throw .badPoll("An answer has control characters.") }
            }
        case .yesno:
            guard d.answers == ["Yes", "No"] else { throw .badPoll("A yes/no poll has the answers Yes and No.") }
        case .text:
            guard d.answers.isEmpty else { throw .badPoll("An open question has no answers to choose from.") }
        }
        if let c = d.correct {
            guard d.kind != .text, c >= 0, c < d.answers.count else { throw .badPoll("The correct answer must be one of the answers.") }
        }
        guard !AudienceLimits.hasControl(d.question) else { throw .badPoll("The question has control characters.") }
    }

    mutating func answer(_ a: PollAnswer, voter: String) throws(LecternError) {
        guard open else { throw .pollClosed }
        // Bounded whoever answers: in devices, and an open question's text in bytes (§24.7).
        guard answers[voter] != nil || answers.count < AudienceLimits.maxAnswersPerPoll else {
            throw .tooMany("answers to one poll", limit: AudienceLimits.maxAnswersPerPoll)
        }
        switch a {
        case .choice(let i):
            guard draft.kind != .text else { throw .badAnswer("This is an open question — send text.") }
            guard i >= 0, i < draft.answers.count else { throw .badAnswer("There's no answer \(i + 1) — pick one of \(draft.answers.count).") }
        case .text(let t):
            guard draft.kind == .text else { throw .badAnswer("Pick one of the answers.") }
            let trimmed = t.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { throw .badAnswer("The answer is empty.") }
            guard t.utf8.count <= AudienceLimits.maxTextAnswerBytes else { throw .tooLong("answer", limit: AudienceLimits.maxTextAnswerBytes) }
            guard !AudienceLimits.hasControl(t) else { throw .badAnswer("The answer has control characters.") }
            var replaced = 0
            if case .text(let old)? = answers[voter] { replaced = old.utf8.count }
            guard textBytes - replaced + t.utf8.count <= AudienceLimits.maxTextBytesPerPoll else {
                throw .tooMany("bytes of open-text answers to one poll", limit: AudienceLimits.maxTextBytesPerPoll)
            }
            if answers[voter] == nil { textOrder.append(voter) }
        }
        answers[voter] = a
    }

    public var counts: [Int] {
        var c = [Int](repeating: 0, count: draft.answers.count)
        for case .choice(let i) in answers.values where i < c.count { c[i] += 1 }
        return c
    }

    public var texts: [String] {
        textOrder.compactMap { if case .text(let t) = answers[$0] { t } else { nil } }
    }

    public var total: Int { answers.count }

    /// The open-text answers' bytes kept now.
    var textBytes: Int {
        var n = 0
        for case .text(let t) in answers.values { n += t.utf8.count }
        return n
    }

    /// Open-text answers `offset`..<`offset + count` (oldest first) and how many in all.
    public func textPage(offset: Int, count: Int) -> (texts: [String], total: Int) {
        let all = texts
        let from = min(max(0, offset), all.count)
        return (Array(all[from..<min(all.count, from + max(0, count))]), all.count)
    }

    /// The poll as the presenter and moderator see it (`privileged`) or as a viewer and the
    /// wall do: results only once shown, the correct answer only once revealed.
    public func snapshot(privileged: Bool) -> PollSnapshot {
        let texts = self.texts
        // The presenters' state carries the newest few; the rest is fetched (§24.6).
        let from = max(0, texts.count - AudienceLimits.stateTexts)
        let showTexts: [String]? =
            draft.kind != .text
            ? nil : privileged ? Array(texts[from...]) : showResults ? picks.compactMap { $0 < texts.count ? texts[$0] : nil } : nil
        var s = PollSnapshot(
            id: id, question: draft.question, kind: draft.kind, answers: draft.answers, open: open,
            showResults: showResults, showAnswer: showAnswer,
            correct: privileged || showAnswer ? draft.correct : nil, total: privileged || showResults ? total : 0,
            counts: draft.kind == .text ? nil : (privileged || showResults ? counts : nil),
            texts: showTexts, picks: picks)
        if privileged && draft.kind == .text {
            s.textCount = texts.count
            s.textsFrom = from
        }
        return s
    }
}

/// The polls of one meeting: ask (the new one is the current; an open one before it is
/// closed), answer, close, show; at most `AudienceLimits.maxPolls`. Pure.
public struct PollBook: Codable, Equatable, Sendable {
    public private(set) var polls: [Poll] = []
    private var nextID: UInt32 = 1

    public init() {}

    public var current: Poll? { polls.last }

    @discardableResult
    public mutating func ask(_ draft: PollDraft) throws(LecternError) -> UInt32 {
        var draft = draft
        if draft.kind == .yesno, draft.answers.isEmpty { draft.answers = ["Yes", "No"] }
        try Poll.validate(draft)
        guard polls.count < AudienceLimits.maxPolls else { throw .tooMany("polls in one meeting", limit: AudienceLimits.maxPolls) }
        if !polls.isEmpty { polls[polls.count - 1].open = false }
        let id = nextID
        nextID += 1
        polls.append(Poll(id: id, draft: draft))
        return id
    }

    private func index(_ id: UInt32) throws(LecternError) -> Int {
        if id == 0, !polls.isEmpty { return polls.count - 1 }
        guard let i = polls.firstIndex(where: { $0.id == id }) else { throw .noSuchPoll }
        return i
    }

    public mutating func answer(_ id: UInt32, _ a: PollAnswer, voter: String) throws(LecternError) {
        let i = try index(id)
        try polls[i].answer(a, voter: voter)
    }

    /// The poll `id` (0: the current one).
    public func poll(_ id: UInt32) throws(LecternError) -> Poll { polls[try index(id)] }

    public mutating func close(_ id: UInt32) throws(LecternError) {
        polls[try index(id)].open = false
    }

    public mutating func show(_ s: PollShow) throws(LecternError) {
        let i = try index(s.poll)
        if s.answer, polls[i].draft.correct == nil { throw .badPoll("This poll has no correct answer to show.") }
        guard s.picks.count <= AudienceLimits.maxPicks else { throw .tooMany("picked answers", limit: AudienceLimits.maxPicks) }
        let n = polls[i].texts.count
        guard s.picks.allSatisfy({ $0 >= 0 && $0 < n }) else { throw .badAnswer("There are only \(n) answers to pick from.") }
        polls[i].showResults = s.results
        polls[i].showAnswer = s.answer
        polls[i].picks = s.picks
    }

    /// What a poll's chart on the wall shows: the current poll when its results are shown.
    public var onWall: Poll? {
        guard let p = current, p.showResults else { return nil }
        return p
    }
}
