import Dispatch
import Synchronization

/// What a condition variable is to a lock, for state behind a `Mutex` (which has no wait):
/// a thread notes the bell's `generation`, checks the state under its `Mutex`, and when
/// there is nothing for it yet waits for a ring after that generation. Whoever changes the
/// state rings after the change, so a change between the check and the wait is never
/// missed (the generation has moved on: the wait returns at once). Every waiter wakes at a
/// ring (a broadcast); each checks the state again.
public final class ChangeBell: Sendable {
    private let state = Mutex<(generation: UInt64, sleepers: [DispatchSemaphore])>((0, []))

    public init() {}

    /// The rings so far: note it before checking the state.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// Threads waiting now (for tests and diagnostics).
    var sleeping: Int { state.withLock { $0.sleepers.count } }

    /// Wakes every thread waiting (call after changing the state, outside its lock or in it).
    public func ring() {
        let sleepers = state.withLock { s -> [DispatchSemaphore] in
            s.generation &+= 1
            defer { s.sleepers = [] }
            return s.sleepers
        }
        for s in sleepers { s.signal() }
    }

    /// Waits until a ring after `seen` (at once if there was one), or until `deadline`;
    /// false when the deadline passed first.
    @discardableResult
    public func wait(after seen: UInt64, until deadline: DispatchTime = .distantFuture) -> Bool {
        let sleeper = DispatchSemaphore(value: 0)
        let rang = state.withLock { s -> Bool in
            if s.generation != seen { return true }
            s.sleepers.append(sleeper)
            return false
        }
        if rang || sleeper.wait(timeout: deadline) == .success { return true }
        // Timed out; a ring that came meanwhile took this sleeper off already.
        return state.withLock { s -> Bool in
            guard let i = s.sleepers.firstIndex(where: { $0 === sleeper }) else { return true }
            s.sleepers.remove(at: i)
            return false
        }
    }
}
