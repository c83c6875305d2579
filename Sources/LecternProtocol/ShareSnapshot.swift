import LecternModel

/// One live share in the state's `shares` list (§29.5).
public struct ShareSnapshot: Codable, Equatable, Sendable {
    public enum Status: String, Codable, Sendable, Equatable {
        /// Waiting for the moderator's approval (a moderated room).
        case waiting
        /// On the wall.
        case live
        /// On the wall, its last picture held and marked paused (the sharer paused).
        case paused
        /// On the wall, its last picture held and marked paused: the sharer's connection is
        /// gone and it is kept for the grace period (§9.6).
        case away
    }
    /// The sharing device.
    public var device: DeviceID
    public var name: String
    public var status: Status
    /// The pane it shows in (null while waiting).
    public var pane: Int?
    /// "screen", "camera" or "file"; "h264", "vp8" or "vp9".
    public var source: String
    public var codec: String
    public var width: Int
    public var height: Int
    /// How long it has been live, in milliseconds (0 while waiting).
    public var liveMs: UInt64

    public init(
        device: DeviceID, name: String, status: Status, pane: Int?, source: String, codec: String, width: Int, height: Int,
        liveMs: UInt64
    ) {
        self.device = device; self.name = name; self.status = status; self.pane = pane; self.source = source
        self.codec = codec; self.width = width; self.height = height; self.liveMs = liveMs
    }

    enum CodingKeys: String, CodingKey { case device, name, status, pane, source, codec, width, height, liveMs }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(device, forKey: .device)
        try c.encode(name, forKey: .name)
        try c.encode(status, forKey: .status)
        try c.encode(pane, forKey: .pane)   // null while waiting
        try c.encode(source, forKey: .source)
        try c.encode(codec, forKey: .codec)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(liveMs, forKey: .liveMs)
    }
}
