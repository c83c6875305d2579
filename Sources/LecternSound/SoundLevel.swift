import Foundation

/// The room's volume, read by whichever clip is playing: 0…100 and mute, set from any
/// thread (the room's shell), read by the sound thread at every piece it writes, so a
/// change is heard within one piece (about 20 ms).
public final class SoundLevel: @unchecked Sendable {
    private let lock = NSLock()
    private var _level: Int
    private var _muted: Bool

    public init(level: Int = 100, muted: Bool = false) {
        _level = max(0, min(100, level))
        _muted = muted
    }

    public func set(level: Int, muted: Bool) {
        lock.withLock {
            _level = max(0, min(100, level))
            _muted = muted
        }
    }

    /// The factor samples are multiplied by: 0 when muted; the level on a square law
    /// (50 sounds about half as loud, not barely quieter).
    public var gain: Double {
        lock.withLock {
            guard !_muted else { return 0 }
            let l = Double(_level) / 100
            return l * l
        }
    }
}
