import Dispatch
import Synchronization

/// What other threads hand the display loop. Posting never waits for the loop.
final class Mailbox<Message: Sendable>: Sendable {
    private let items = Mutex<[Message]>([])
    private let bell = DispatchSemaphore(value: 0)

    func post(_ m: Message) {
        items.withLock { $0.append(m) }
        bell.signal()
    }

    /// Everything posted so far, oldest first.
    func drain() -> [Message] {
        items.withLock {
            let all = $0
            $0 = []
            return all
        }
    }

    /// Waits until something is posted or `seconds` passed.
    func wait(seconds: Double) {
        guard items.withLock({ $0.isEmpty }) else { return }
        _ = bell.wait(timeout: .now() + seconds)
    }
}
