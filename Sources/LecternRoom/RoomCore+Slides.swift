import LecternModel
import LecternProtocol

/// Slides by label and wrap-around (docs/protocol.md §20.5).
extension RoomCore {
    /// Next on the last page (previous on the first) goes round when `wrap_around` is on.
    func wrapped(_ s: ControlSignal) -> ControlSignal {
        guard config.wrapAround else { return s }
        let c = screen.running?.target ?? screen.committed
        guard c.content != nil, c.pageCount > 1, !c.growing else { return s }
        switch s {
        case .next where c.page >= c.pageCount: return .goto(page: 1)
        case .prev where c.page <= 1: return .goto(page: UInt32(c.pageCount))
        default: return s
        }
    }

    /// To the first step of the slide with that label in the deck on screen.
    mutating func gotoLabel(_ label: String, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        try floor.checkCanDrive(me)
        guard screen.clip == nil, let c = screen.committed.content, c.kind == .pdf, let item = deckEntry(c.id) else {
            throw LecternError.nothingOnScreen
        }
        guard let page = item.deck.facts.numbering.page(forLabel: label) else { throw LecternError.unknownLabel(label) }
        changeScreen(.signal(.goto(page: UInt32(page))), reply: ScreenReply(peer: p.id, tag: tag, request: .gotoLabel, ok: .ok))
    }
}
