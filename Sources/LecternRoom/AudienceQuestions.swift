import LecternProtocol

/// Questions from the audience: asked (anonymous unless the asker gives a name), up-voted
/// (one vote per device, a second vote takes it back), ranked by votes, marked answered,
/// one shown on the wall, hidden ones gone for viewers. Per device: one question every
/// `questionIntervalSeconds`, at most `maxQuestionsPerDevice`. Pure: time is passed in.
public struct AudienceQuestions: Codable, Equatable, Sendable {
    public struct Question: Codable, Equatable, Sendable {
        public let id: UInt32
        public let text: String
        public let name: String?
        /// Voter key of the asker (to count and pace its questions), never shown.
        let asker: String
        var voters: Set<String> = []
        public var answered = false
        public var hidden = false
        public var votes: Int { voters.count }
    }

    public private(set) var questions: [Question] = []
    public private(set) var onWall: UInt32?
    private var nextID: UInt32 = 1
    /// Voter key → when it last asked (monotonic seconds of this run; not saved).
    private var lastAsked: [String: Double] = [:]

    public init() {}

    enum CodingKeys: String, CodingKey { case questions, onWall, nextID }

    @discardableResult
    public mutating func ask(_ text: String, name: String?, voter: String, now: Double) throws(LecternError) -> UInt32 {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .badAnswer("The question is empty.") }
        guard text.utf8.count <= AudienceLimits.maxQuestionBytes else { throw .tooLong("question", limit: AudienceLimits.maxQuestionBytes) }
        guard !AudienceLimits.hasControl(text) else { throw .badAnswer("The question has control characters.") }
        if let last = lastAsked[voter], now - last < AudienceLimits.questionIntervalSeconds {
            throw .slowDown(retryAfter: AudienceLimits.questionIntervalSeconds - (now - last))
        }
        guard questions.filter({ $0.asker == voter }).count < AudienceLimits.maxQuestionsPerDevice else {
            throw .tooMany("questions from one device", limit: AudienceLimits.maxQuestionsPerDevice)
        }
        guard questions.count < AudienceLimits.maxQuestions else { throw .tooMany("questions in one meeting", limit: AudienceLimits.maxQuestions) }
        let id = nextID
        nextID += 1
        questions.append(Question(id: id, text: trimmed, name: name, asker: voter))
        lastAsked[voter] = now
        return id
    }

    /// Up-votes a question (again: takes the vote back). Hidden ones can't be voted for.
    public mutating func vote(_ id: UInt32, voter: String) throws(LecternError) {
        guard let i = questions.firstIndex(where: { $0.id == id && !$0.hidden }) else { throw .noSuchQuestion }
        if questions[i].voters.remove(voter) == nil { questions[i].voters.insert(voter) }
    }

    public mutating func mark(_ id: UInt32, _ action: QuestionAction) throws(LecternError) {
        guard let i = questions.firstIndex(where: { $0.id == id }) else { throw .noSuchQuestion }
        switch action {
        case .answered:
            questions[i].answered = true
            if onWall == id { onWall = nil }
        case .showOnWall:
            guard !questions[i].hidden else { throw .noSuchQuestion }
            onWall = id
        case .offWall:
            if onWall == id { onWall = nil }
        case .hide:
            questions[i].hidden = true
            if onWall == id { onWall = nil }
        }
    }

    /// Most votes first, then oldest first; viewers never see hidden ones.
    public func ranked(privileged: Bool) -> [QuestionSnapshot] {
        questions.filter { privileged || !$0.hidden }
            .sorted { $0.votes != $1.votes ? $0.votes > $1.votes : $0.id < $1.id }
            .map { QuestionSnapshot(id: $0.id, text: $0.text, name: $0.name, votes: $0.votes, answered: $0.answered, hidden: $0.hidden) }
    }

    /// Ranked questions `offset`..<`offset + count` and how many in all (for this client).
    public func page(privileged: Bool, offset: Int, count: Int) -> (questions: [QuestionSnapshot], total: Int) {
        let all = ranked(privileged: privileged)
        let from = min(max(0, offset), all.count)
        return (Array(all[from..<min(all.count, from + max(0, count))]), all.count)
    }

    public var wallQuestion: Question? { onWall.flatMap { id in questions.first { $0.id == id } } }
}
