import LecternModel
import LecternProtocol

/// What the room keeps of the audience (§24): who is watching, the polls, the questions,
/// the navigation lock and download permission, and since when nobody is in the room.
struct AudienceRoom: Equatable, Sendable {
    var viewers = Audience()
    var polls = PollBook()
    var questions = AudienceQuestions()
    var navigation = ViewerNavigation()
    /// Polls prepared with decks (§24.3): deck material, kept when the meeting ends.
    var prepared = PreparedPolls()
    /// New identities per address (§24.1); set from the config by the core.
    var joins = AudienceJoinBudget(burst: AudienceLimits.newViewersPerAddress, refillSeconds: AudienceLimits.newViewerSeconds)
    /// Live results: pushed at most every `resultsInterval` (a burst of answers costs a few
    /// pushes, not one each); one owed is sent by the next tick.
    var lastResultsPush = -Double.infinity
    var resultsPushOwed = false
    static let resultsInterval = 0.25
    /// When owed live results go out (the room wakes for them, not only at the next tick).
    var resultsOwedAt: Double? { resultsPushOwed ? lastResultsPush + Self.resultsInterval : nil }
    /// The pointer to viewers, paced.
    var pointer = ViewerPointerPacer()

    var count: Int { viewers.count }

    /// Whether there is anything the end of a meeting would clear.
    var hasMeeting: Bool { !polls.polls.isEmpty || !questions.questions.isEmpty || navigation != ViewerNavigation() }

    var saved: AudienceSaved? {
        guard hasMeeting || !viewers.savedTokens.isEmpty || !prepared.isEmpty else { return nil }
        return AudienceSaved(polls: polls, questions: questions, navigation: navigation, viewers: viewers.savedTokens, prepared: prepared)
    }

    mutating func restore(_ s: AudienceSaved, now: Double) {
        polls = s.polls
        questions = s.questions
        navigation = s.navigation
        viewers.restore(tokens: s.viewers)
        prepared = s.prepared ?? PreparedPolls()
    }

    /// The meeting ended (§27, `RoomCore.endMeeting`): polls, answers, questions, the lock,
    /// the download offer and device identities go.
    mutating func endMeeting() {
        polls = PollBook()
        questions = AudienceQuestions()
        navigation = ViewerNavigation()
        viewers.forgetIdentities()
    }
}

/// The audience as `state.json` keeps it: no names with answers (answers are keyed by a
/// hash of the device's token), cleared when the meeting ends.
public struct AudienceSaved: Codable, Equatable, Sendable {
    public var polls: PollBook
    public var questions: AudienceQuestions
    public var navigation: ViewerNavigation
    /// Viewer tokens (hex) → guest number, so a phone that reconnects after a restart is the same device.
    public var viewers: [String: Int]
    /// Polls prepared with decks (§24.3); absent in files from before they existed.
    public var prepared: PreparedPolls?
}
