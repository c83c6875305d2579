import Foundation

/// A value threads share, behind a lock (a flag a flood runs until, a count a sender keeps).
public final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) { stored = value }

    public var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    public func modify<T>(_ change: (inout Value) -> T) -> T { lock.withLock { change(&stored) } }
}
