/// Where playback stands, for the service to report (`screen.clip` in the state).
public struct PlaybackStatus: Equatable, Sendable {
    public enum State: String, Equatable, Sendable { case playing, paused, stopped }
    public var state: State = .playing
    /// Clip time of the frame on screen, seconds.
    public var position: Double = 0
    public var duration: Double = 0
    public var loop = false
    public var presented = 0
    public var dropped = 0
    public var decodeErrors = 0
    public init() {}
}

/// Why a clip source ended (`ClipSource`'s `onEnd`).
public enum PlaybackEnd: Equatable, Sendable {
    /// The clip played to its end.
    case ended
    /// `stop()` was called.
    case stopped
    /// The clip couldn't go on (damaged past a point, or the output failed); what decoded
    /// was shown. The message says why, for the log.
    case failed(String)
}

public struct PlaybackResult: Equatable, Sendable {
    public var end: PlaybackEnd
    public var status: PlaybackStatus
}
