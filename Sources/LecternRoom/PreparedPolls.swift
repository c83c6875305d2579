import LecternProtocol

/// Polls prepared ahead with a deck (docs/protocol.md §24.3): for each deck (content id
/// hex) its list of drafts, replaced whole by poll-prepare, asked by index with
/// poll-ask-prepared. Deck material, not meeting data: kept in `state.json` across restarts
/// and the end of a meeting, dropped with the deck. At most `AudienceLimits.maxPreparedPerDeck`
/// per deck and `AudienceLimits.maxPreparedDecks` decks. Pure.
public struct PreparedPolls: Codable, Equatable, Sendable {
    public private(set) var byDeck: [String: [PollDraft]] = [:]

    public init() {}

    public var isEmpty: Bool { byDeck.isEmpty }

    public func drafts(for content: String) -> [PollDraft] { byDeck[content] ?? [] }

    /// The deck's list, replaced (empty: removed); each draft checked as an asked one is.
    public mutating func set(_ drafts: [PollDraft], for content: String) throws(LecternError) {
        guard drafts.count <= AudienceLimits.maxPreparedPerDeck else { throw .tooMany("prepared polls for one deck", limit: AudienceLimits.maxPreparedPerDeck) }
        var checked: [PollDraft] = []
        for d in drafts {
            var d = d
            if d.kind == .yesno, d.answers.isEmpty { d.answers = ["Yes", "No"] }
            try Poll.validate(d)
            checked.append(d)
        }
        if checked.isEmpty {
            byDeck[content] = nil
            return
        }
        guard byDeck[content] != nil || byDeck.count < AudienceLimits.maxPreparedDecks else {
            throw .tooMany("decks with prepared polls", limit: AudienceLimits.maxPreparedDecks)
        }
        byDeck[content] = checked
    }

    /// The `index`th (0-based) prepared poll of the deck.
    public func draft(_ index: Int, for content: String) throws(LecternError) -> PollDraft {
        let list = drafts(for: content)
        guard index >= 0, index < list.count else {
            throw .noSuchPoll
        }
        return list[index]
    }

    /// The deck was deleted: its polls go with it.
    public mutating func remove(_ content: String) { byDeck[content] = nil }

    /// Only decks still in the store are kept.
    public mutating func keep(only contents: Set<String>) { byDeck = byDeck.filter { contents.contains($0.key) } }
}
