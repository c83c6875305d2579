import Synchronization

/// When a sink's first sample since it opened or last dropped was written (monotonic
/// seconds; nil before): set by the thread that writes the sound, read from any other (a
/// bench or a test measuring the sound against the picture), without touching the sink.
public final class SoundStart: Sendable {
    private let first = Mutex<Double?>(nil)

    public init() {}

    public var time: Double? { first.withLock { $0 } }

    func set(_ time: Double?) { first.withLock { $0 = time } }
}
