import LecternModel
import LecternProtocol

/// The output's display (lost, back, another mode) and the room's cross-fade choice
/// (docs/protocol.md §21).
extension RoomCore {
    /// Every device hears at once when the projector goes away or comes back: the state is
    /// pushed, and the log says so.
    mutating func outputChanged(_ status: OutputSnapshot) {
        var s = status
        s.losses = output.losses + (output.connected && !status.connected && output.width != 0 ? 1 : 0)
        guard s != output else { return }
        let was = output
        output = s
        if was.connected && !s.connected {
            log(.warning, "the display on \(s.name) is disconnected: the slide comes back when it does")
        } else if !was.connected && s.connected && was.width != 0 {
            log(.info, "the display is back on \(s.name) (\(s.mode))")
        } else if was.mode != s.mode && was.width != 0 {
            log(.info, "the display changed mode to \(s.mode)")
        }
        pushState()
    }

    /// Control signal 0x10 from whoever drives the screen: the cross-fade for pages without
    /// `/Trans` (0 off), for the room until changed again or the service restarts.
    mutating func setFallbackFade(_ ms: UInt32, by p: Peer, tag: UInt16) {
        send(.controlOK, to: p, tag: tag)
        guard ms != fallbackFadeMs else { return }
        fallbackFadeMs = ms
        emit(.setFallbackTransition(Self.fallbackTransition(ms: ms)))
        pushState()
    }

    /// The cross-fade for `ms` (0: none).
    public static func fallbackTransition(ms: UInt32) -> PageTransition? {
        ms == 0 ? nil : .fade(Double(ms) / 1000)
    }
}
