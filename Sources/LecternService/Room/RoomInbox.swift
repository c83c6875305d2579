import LecternRoom
import NIOConcurrencyHelpers
import NIOCore

/// Where reports from the room's workers (any thread) come in: each is fed to the room on
/// its loop, in order, while the room runs; from `close()` on (the loop is going away)
/// they are dropped. Made before the workers that report to it, so that the room gets
/// them whole in its `init`; the room attaches itself once it is made.
final class RoomInbox: Sendable {
    private struct State {
        var open = true
        weak var room: Room?
    }
    let loop: EventLoop
    private let state = NIOLockedValueBox(State())

    init(loop: EventLoop) { self.loop = loop }

    func attach(_ room: Room) { state.withLockedValue { $0.room = room } }

    /// The room, while it is there (read on its loop).
    var room: Room? { state.withLockedValue { $0.room } }

    func report(_ event: RoomEvent) {
        state.withLockedValue { s in
            guard s.open, let room = s.room else { return }
            loop.execute { room.feed(event) }
        }
    }

    /// Runs `body` on the loop unless the room has stopped (its loop may be gone).
    func whileOpen(_ body: @escaping @Sendable () -> Void) {
        state.withLockedValue { s in if s.open { loop.execute(body) } }
    }

    var isOpen: Bool { state.withLockedValue { $0.open } }

    /// From now on reports are dropped.
    func close() { state.withLockedValue { $0.open = false } }
}
