import Synchronization

/// A value threads share, behind a lock (a flag a flood runs until, a count a sender keeps).
public final class Shared<Value: Sendable>: Sendable {
    private let stored: Mutex<Value>

    public init(_ value: Value) { stored = Mutex(value) }

    public var value: Value {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }

    public func modify<T: Sendable>(_ change: (inout Value) -> T) -> T { stored.withLock { change(&$0) } }
}
