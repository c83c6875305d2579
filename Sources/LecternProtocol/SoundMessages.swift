import LecternModel

/// sound-set (0xA0, docs/protocol.md §23): the room's volume and mute, either or both.
/// Body: level u8 (0–100, or 255 = leave as it is), mute u8 (0 = sound on, 1 = muted,
/// 255 = leave as it is). A level from 101 to 254 decodes (the room answers
/// `volumeOutOfRange` with the level as detail); any other mute byte is a malformed body.
public struct SoundSetting: Equatable, Sendable {
    public static let unchanged: UInt8 = 255
    /// The raw level byte: 0–100, `unchanged`, or out of range (refused by the room).
    public var level: UInt8
    /// nil: leave as it is.
    public var muted: Bool?

    public init(level: UInt8 = SoundSetting.unchanged, muted: Bool? = nil) {
        self.level = level
        self.muted = muted
    }
}

/// The room's sound as the state shows it (`sound` in the snapshot).
public struct SoundSnapshot: Codable, Equatable, Sendable {
    /// 0–100.
    public var level: UInt8
    public var muted: Bool
    /// The ALSA device clips play their sound on; null when there is none (clips play
    /// silent: no HDMI card, `audio_device = "off"`).
    public var device: String?

    public init(level: UInt8 = 100, muted: Bool = false, device: String? = nil) {
        self.level = level
        self.muted = muted
        self.device = device
    }

    enum CodingKeys: String, CodingKey { case level, muted, device }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(level, forKey: .level)
        try c.encode(muted, forKey: .muted)
        try c.encode(device, forKey: .device)
    }
}

extension Body {
    static func soundSet(_ s: SoundSetting, _ w: inout ByteWriter) {
        w.u8(s.level)
        w.u8(s.muted.map { $0 ? 1 : 0 } ?? SoundSetting.unchanged)
    }
    static func soundSet(_ r: inout ByteReader) throws -> SoundSetting {
        let level = try r.u8()
        let m = try r.u8()
        switch m {
        case 0: return SoundSetting(level: level, muted: false)
        case 1: return SoundSetting(level: level, muted: true)
        case SoundSetting.unchanged: return SoundSetting(level: level, muted: nil)
        default: throw WireError.invalid("mute \(m) is not 0 (sound on), 1 (muted) or 255 (unchanged)")
        }
    }
}
