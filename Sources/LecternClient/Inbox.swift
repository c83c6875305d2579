import Foundation
import LecternProtocol

/// Messages received, waiting to be taken by tag.
///
/// Sendable unchecked, and why that holds: every stored property is read and written only with
/// `cond` locked; an `NSCondition` rather than a `Mutex` because readers wait on it with a deadline.
final class Inbox: @unchecked Sendable {
    private let cond = NSCondition()
    private var items: [(tag: UInt16, message: Message)] = []
    private var closed = false
    var latestState: Snapshot? { cond.lock(); defer { cond.unlock() }; return _latest }
    private var _latest: Snapshot?

    func put(_ m: Message, tag: UInt16) {
        cond.lock()
        // A push is always the newest; a reply is newer if its revision is higher, or it comes
        // from another run of the service (its epoch, §14.1: the revision starts again there).
        if case .state(let s) = m, tag == 0 || _latest == nil || s.epoch != _latest?.epoch || s.revision > (_latest?.revision ?? 0) { _latest = s }
        items.append((tag, m))
        // Nobody may be reading pushes (a long upload): keep only the newest 256 of them.
        if tag == 0, items.count > 512 {
            var unsolicited = items.filter { $0.tag == 0 }.count
            items.removeAll { item in
                guard item.tag == 0, unsolicited > 256 else { return false }
                unsolicited -= 1
                return true
            }
        }
        cond.broadcast()
        cond.unlock()
    }

    func close() { cond.lock(); closed = true; cond.broadcast(); cond.unlock() }

    private var writable = true
    func setWritable(_ w: Bool) { cond.lock(); writable = w; cond.broadcast(); cond.unlock() }

    /// Waits until the connection takes more data (or is closed); false on time-out or close.
    func waitUntilWritable(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        cond.lock(); defer { cond.unlock() }
        while !writable && !closed && Date() < deadline { _ = cond.wait(until: deadline) }
        return writable && !closed
    }

    /// Takes the first message with `tag` (and `command`, if given), waiting up to `timeout`.
    func next(tag: UInt16, command: UInt8?, timeout: Double) -> Message? {
        let deadline = Date().addingTimeInterval(timeout)
        cond.lock(); defer { cond.unlock() }
        while true {
            if let i = items.firstIndex(where: { $0.tag == tag && (command == nil || $0.message.command.rawValue == command) }) {
                return items.remove(at: i).message
            }
            if closed || Date() >= deadline { return nil }
            _ = cond.wait(until: deadline)
        }
    }

    /// The first error addressed to any of `tags`, taken.
    func firstFailure(tags: [UInt16]) -> LecternError? {
        cond.lock(); defer { cond.unlock() }
        let set = Set(tags)
        if let i = items.firstIndex(where: { set.contains($0.tag) && $0.message.error != nil }) {
            return items.remove(at: i).message.error
        }
        return nil
    }
}
