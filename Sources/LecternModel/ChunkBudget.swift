/// How many pieces of file downloads (the deck at `/download/<token>`, docs/protocol.md
/// §24.5) may be in memory at once, over all connections: a download reads its next piece
/// only once it holds a place, and gives the place back when the piece is written out (the
/// peer's socket took it). Places go to the downloads waiting, first come first served.
/// Pure: ids in, ids granted out (`DeckStream`'s gate is the shell).
public struct ChunkBudget: Sendable {
    /// Places in all (each holds one piece).
    public let places: Int
    public private(set) var held = 0
    private var waiting: [Int] = []

    public init(places: Int) { self.places = max(1, places) }

    /// `id` wants a place: true when it has one now, else it waits its turn (`release`
    /// names it when its turn comes).
    public mutating func ask(_ id: Int) -> Bool {
        if held < places && waiting.isEmpty {
            held += 1
            return true
        }
        if !waiting.contains(id) { waiting.append(id) }
        return false
    }

    /// A place is given back: the id of the download that has it now, if one waited.
    public mutating func release() -> Int? {
        guard !waiting.isEmpty else {
            held = max(0, held - 1)
            return nil
        }
        return waiting.removeFirst()
    }

    /// `id` stopped (its connection closed) while waiting: it waits no more.
    public mutating func leave(_ id: Int) { waiting.removeAll { $0 == id } }

    public var waitingCount: Int { waiting.count }
}
