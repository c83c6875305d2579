import Dispatch
import Foundation
import LecternModel
import LecternSystem
import LecternProtocol
import Synchronization

/// Messages received, waiting to be taken by tag. The state is behind a `Mutex`; readers
/// waiting with a deadline wait on `bell`, which rings after every change.
final class Inbox: Sendable {
    private struct State {
        var items: [(tag: UInt16, message: Message)] = []
        var closed = false
        var latest: Snapshot?
        var writable = true
    }
    private let state = Mutex(State())
    private let bell = ChangeBell()

    var latestState: Snapshot? { state.withLock { $0.latest } }

    func put(_ m: Message, tag: UInt16) {
        state.withLock { s in
            // A push is always the newest; a reply is newer if its revision is higher, or it comes
            // from another run of the service (its epoch, §14.1: the revision starts again there).
            if case .state(let snap) = m, tag == 0 || s.latest == nil || snap.epoch != s.latest?.epoch || snap.revision > (s.latest?.revision ?? 0) {
                s.latest = snap
            }
            s.items.append((tag, m))
            // Nobody may be reading pushes (a long upload): keep only the newest 256 of them.
            if tag == 0, s.items.count > 512 {
                var unsolicited = s.items.filter { $0.tag == 0 }.count
                s.items.removeAll { item in
                    guard item.tag == 0, unsolicited > 256 else { return false }
                    unsolicited -= 1
                    return true
                }
            }
        }
        bell.ring()
    }

    func close() {
        state.withLock { $0.closed = true }
        bell.ring()
    }

    func setWritable(_ w: Bool) {
        state.withLock { $0.writable = w }
        bell.ring()
    }

    /// Waits until `found` finds something in the state (or the deadline passes: nil).
    private func wait<T>(timeout: Double, _ found: (inout State) -> T?) -> T? {
        let deadline = DispatchTime.now() + max(0, timeout)
        while true {
            let seen = bell.generation
            if let t = state.withLock({ found(&$0) }) { return t }
            if !bell.wait(after: seen, until: deadline) { return state.withLock { found(&$0) } }
        }
    }

    /// Waits until the connection takes more data (or is closed); false on time-out or close.
    func waitUntilWritable(timeout: Double) -> Bool {
        wait(timeout: timeout) { s in s.writable || s.closed ? true : nil } != nil && state.withLock { $0.writable && !$0.closed }
    }

    /// Takes the first message with `tag` (and `command`, if given), waiting up to `timeout`.
    func next(tag: UInt16, command: UInt8?, timeout: Double) -> Message? {
        let taken: Message?? = wait(timeout: timeout) { s in
            if let i = s.items.firstIndex(where: { $0.tag == tag && (command == nil || $0.message.command.rawValue == command) }) {
                return .some(s.items.remove(at: i).message)
            }
            return s.closed ? .some(nil) : nil
        }
        return taken ?? nil
    }

    /// The first error addressed to any of `tags`, taken.
    func firstFailure(tags: [UInt16]) -> LecternError? {
        let set = Set(tags)
        return state.withLock { s in
            guard let i = s.items.firstIndex(where: { set.contains($0.tag) && $0.message.error != nil }) else { return nil }
            return s.items.remove(at: i).message.error
        }
    }
}
