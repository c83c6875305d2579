import LecternModel
import LecternProtocol

/// Whiteboards (docs/protocol.md §22.8): whiteboard-new adds a blank 16:9 page to the
/// meeting's white or black boards and shows it; the boards stay with the meeting (and a
/// restart) like a deck, with their ink.
extension RoomCore {
    mutating func newWhiteboard(black: Bool, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        try floor.checkCanDrive(me)
        let n = whiteboardCount(black: black) + 1
        guard n <= Whiteboard.maxBoards else { throw LecternError.tooManyWhiteboards(limit: Whiteboard.maxBoards) }
        let entry = setWhiteboards(black: black, count: n)
        log(.info, "device \(me) opened \(Whiteboard.name(black: black).lowercased()) \(n)")
        let model = CommittedScreen(content: entry.snapshot, page: n, pageCount: n, blank: .none)
        changeScreen(.page(model), reply: ScreenReply(peer: p.id, tag: tag, request: .present, ok: .presentOK))
    }

    func whiteboardCount(black: Bool) -> Int {
        ContentID(hex: Whiteboard.hex(black: black)).flatMap { catalog[$0]?.pages } ?? 0
    }

    /// The boards of one colour, as a deck in the catalogue.
    @discardableResult
    mutating func setWhiteboards(black: Bool, count: Int) -> ContentEntry {
        let entry = ContentEntry(id: ContentID(hex: Whiteboard.hex(black: black))!, name: Whiteboard.name(black: black), kind: .pdf, size: 0, pages: count)
        catalog.set(entry)
        return entry
    }

    /// Boards of an earlier run (`SavedState.whiteboards`: white, black).
    mutating func restoreWhiteboards(_ counts: [Int]?) {
        guard let counts, counts.count == 2 else { return }
        for (i, n) in counts.enumerated() where n > 0 { setWhiteboards(black: i == 1, count: min(n, Whiteboard.maxBoards)) }
    }

    var whiteboardCounts: [Int]? {
        let c = [whiteboardCount(black: false), whiteboardCount(black: true)]
        return c == [0, 0] ? nil : c
    }
}
