/// The output as devices see it (docs/protocol.md §21): is a display connected, in which
/// mode. A projector unplugged or switched off sets `connected` false at once; when it
/// comes back the same slide is shown again by the service.
public struct OutputSnapshot: Codable, Equatable, Sendable {
    /// False while no display is connected to the output (cable out, projector off).
    public var connected: Bool
    /// The mode shown (or last shown, while disconnected), like "1920x1080@60".
    public var mode: String
    public var width: UInt32
    public var height: UInt32
    /// Short name of the output ("kms card0 HDMI-A-1 1920x1080@60", "virtual 1920x1080@60").
    public var name: String
    /// Times the display was lost since the service started.
    public var losses: UInt32

    public init(connected: Bool = true, mode: String = "", width: UInt32 = 0, height: UInt32 = 0, name: String = "", losses: UInt32 = 0) {
        self.connected = connected
        self.mode = mode
        self.width = width
        self.height = height
        self.name = name
        self.losses = losses
    }
}

/// The room's page-transition choice (§21): the cross-fade played between pages that carry
/// no `/Trans` of their own; 0 when off (the default, unless the config sets one).
public struct TransitionsSnapshot: Codable, Equatable, Sendable {
    public var fallbackFadeMs: UInt32
    public init(fallbackFadeMs: UInt32 = 0) { self.fallbackFadeMs = fallbackFadeMs }
}
