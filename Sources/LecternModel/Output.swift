/// Something that shows frames: the virtual display in memory, or a KMS connector.
///
/// A present is paced by the output's refresh: it returns once the frame is on screen,
/// so a loop that presents as fast as it can runs at the refresh rate and never tears.
public protocol Output: AnyObject {
    /// What the output shows now.
    var mode: DisplayMode { get }
    /// A short human name ("virtual 1920x1080@60", "kms card0 HDMI-A-1 1920x1080@60").
    var name: String { get }
    /// Lets `draw` fill a buffer that is not on screen (the whole frame: its old content is
    /// stale), then shows it at the next refresh and returns when it is on screen.
    func present(draw: (Frame) throws -> Void) throws
    /// A copy of the frame on screen now.
    func readBack() -> Frame
    /// Frames shown since the output opened.
    var presentCount: Int { get }
    /// Whether the output wants to hear of display hotplug events (the service then calls
    /// `reprobe` after each one).
    var wantsHotplugEvents: Bool { get }
    /// Looks at the display again (after a hotplug event). Returns true when a display
    /// appeared or the mode changed: the caller then shows its scene again, at `mode`.
    func reprobe() throws -> Bool
    /// Whether a display is connected (false while the cable is out: presents are dropped).
    var isConnected: Bool { get }
}

extension Output {
    /// An output whose display never changes (the virtual display) wants no events.
    public var wantsHotplugEvents: Bool { false }
    /// Nothing to look at again: nothing changed.
    public func reprobe() throws -> Bool { false }
    /// An output without hotplug always has its display.
    public var isConnected: Bool { true }

    /// Shows a finished frame (copied into the back buffer).
    public func present(_ frame: Frame) throws { try present { $0.copy(from: frame) } }
}
