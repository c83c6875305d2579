import LecternModel
import LecternProtocol

/// The room's volume and mute (§23): set by whoever drives the screen (sound-set), shown
/// in the state, kept across a restart, carried out by the shell (`setSound`).
extension RoomCore {
    /// The shell's sound device (nil: clips play silent), for the state.
    public mutating func setSoundDevice(_ device: String?) { sound.device = device }

    mutating func setSound(_ s: SoundSetting, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        try floor.checkCanDrive(me)
        var next = sound
        if s.level != SoundSetting.unchanged {
            guard s.level <= 100 else { throw LecternError.volumeOutOfRange(s.level) }
            next.level = s.level
        }
        if let m = s.muted { next.muted = m }
        send(.soundSetOK, to: p, tag: tag)
        guard next != sound else { return }
        sound = next
        emit(.setSound(level: Int(next.level), muted: next.muted))
        log(.info, "sound: volume \(next.level)\(next.muted ? ", muted" : "")")
        pushState()
        // Saved at the same bounded rate as a clip's position: a client sliding the volume
        // (or flooding sound-set) costs at most a write every 0.4 s, the last one kept.
        clips.save.owe()
        if clips.save.due(now: now) { persist() }
    }

    mutating func restoreSound(_ saved: SavedSound) {
        sound.level = UInt8(max(0, min(100, saved.level)))
        sound.muted = saved.muted
        emit(.setSound(level: Int(sound.level), muted: sound.muted))
    }
}

/// The room's sound as `state.json` keeps it.
public struct SavedSound: Codable, Equatable, Sendable {
    public var level: Int
    public var muted: Bool
    public init(level: Int, muted: Bool) {
        self.level = level
        self.muted = muted
    }
}
