import LecternModel

/// What libavformat says about a clip: enough to place it, pace it, and refuse at upload
/// time what can't play.
public struct ClipInfo: Equatable, Sendable {
    /// FFmpeg's short codec name ("h264").
    public var codec: String
    /// Picture size as decoded (coded size minus cropping), before sample aspect and rotation.
    public var width: Int
    public var height: Int
    /// Seconds; for raw Annex B streams counted from the frames (frame count / frame rate).
    public var duration: Double
    /// Frames per second (the stream's average rate; 25 when nothing says).
    public var frameRate: Double
    /// Sample (pixel) aspect ratio, width over height; 1 when the stream says nothing.
    public var sampleAspect: Double
    /// Clockwise degrees the picture must be turned for display (0, 90, 180, 270), from the
    /// container's display matrix.
    public var rotation: Int
    /// The container FFmpeg recognised ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "h264").
    public var container: String

    public init(
        codec: String, width: Int, height: Int, duration: Double, frameRate: Double,
        sampleAspect: Double = 1, rotation: Int = 0, container: String = ""
    ) {
        self.codec = codec; self.width = width; self.height = height
        self.duration = duration; self.frameRate = frameRate
        self.sampleAspect = sampleAspect; self.rotation = rotation; self.container = container
    }

    /// The picture's shape for `Fit.rect`: coded size, SAR and rotation.
    public var shape: SourceShape {
        SourceShape(width: Double(width), height: Double(height), rotation: rotation, sampleAspect: sampleAspect)
    }

    /// Nominal seconds per frame.
    public var frameDuration: Double { 1 / frameRate }
}

/// A failure while a clip plays or is positioned (not at upload: what can't play at all is
/// refused with `ContentError.unsupportedMedia`).
public struct VideoError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
