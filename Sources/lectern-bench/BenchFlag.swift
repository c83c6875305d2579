import Synchronization

/// A stop flag and a counter the bench's load threads share.
final class BenchFlag: Sendable {
    private let flag = Mutex(false)
    var isSet: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}

final class BenchCounter: Sendable {
    private let n = Mutex(0)
    var value: Int { n.withLock { $0 } }
    func add() { n.withLock { $0 += 1 } }
}
