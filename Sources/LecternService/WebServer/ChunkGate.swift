import LecternModel
import NIOConcurrencyHelpers

/// The shell of `ChunkBudget`, one per web remote listener: the deck's downloads ask it for
/// a place before reading each piece and give it back once the piece is written out, so
/// what all downloads hold in memory at once is bounded (`places × pieceSize`), however
/// many connections download and however slowly they read.
final class ChunkGate: Sendable {
    /// One piece of a download.
    static let pieceSize = 64 << 10
    /// Places in all by default: 16 MiB of pieces.
    static let defaultPlaces = 256

    private struct State {
        var budget: ChunkBudget
        var waiters: [Int: @Sendable () -> Void] = [:]
        var next = 1
    }
    private let state: NIOLockedValueBox<State>

    init(places: Int = ChunkGate.defaultPlaces) { state = NIOLockedValueBox(State(budget: ChunkBudget(places: places))) }

    /// An id for one download.
    func newID() -> Int {
        state.withLockedValue { s in
            defer { s.next += 1 }
            return s.next
        }
    }

    /// Runs `granted` once `id` holds a place: at once, or when one is given back (on the
    /// thread that gives it back: hop to the connection's loop).
    func ask(_ id: Int, granted: @escaping @Sendable () -> Void) {
        let now = state.withLockedValue { s -> Bool in
            if s.budget.ask(id) { return true }
            s.waiters[id] = granted
            return false
        }
        if now { granted() }
    }

    /// Gives a place back (the piece is written, or the download ended holding it).
    func release() {
        let next = state.withLockedValue { s -> (@Sendable () -> Void)? in
            guard let id = s.budget.release() else { return nil }
            return s.waiters.removeValue(forKey: id)
        }
        next?()
    }

    /// The download `id` ended while it waited for a place.
    func leave(_ id: Int) {
        state.withLockedValue { s in
            s.budget.leave(id)
            s.waiters[id] = nil
        }
    }

    /// Places held and downloads waiting now (tests, the bench).
    var counts: (held: Int, waiting: Int) { state.withLockedValue { ($0.budget.held, $0.budget.waitingCount) } }
}
