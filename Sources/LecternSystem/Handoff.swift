import Synchronization

/// One value that isn't Sendable, handed whole from the thread that made it to the one
/// that will own it (a sound device to its sound thread): `sending` in, taken once, `sending`
/// out, so the compiler checks that nobody else keeps it.
public final class Handoff<Value>: Sendable {
    private let slot: Mutex<Value?>

    public init(_ value: sending Value) { slot = Mutex(value) }

    /// The value, to the first who asks (nil after).
    public func take() -> sending Value? { slot.withLock { $0.take() } }
}
