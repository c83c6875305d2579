import Synchronization

/// The room's volume, read by whichever clip is playing: 0…100 and mute, set from any
/// thread (the room's shell), read by the sound thread at every piece it writes, so a
/// change is heard within one piece (about 20 ms).
public final class SoundLevel: Sendable {
    private let setting: Mutex<(level: Int, muted: Bool)>

    public init(level: Int = 100, muted: Bool = false) {
        setting = Mutex((max(0, min(100, level)), muted))
    }

    public func set(level: Int, muted: Bool) {
        setting.withLock { $0 = (max(0, min(100, level)), muted) }
    }

    /// The factor samples are multiplied by: 0 when muted; the level on a square law
    /// (50 sounds about half as loud, not barely quieter).
    public var gain: Double {
        setting.withLock {
            guard !$0.muted else { return 0 }
            let l = Double($0.level) / 100
            return l * l
        }
    }
}
