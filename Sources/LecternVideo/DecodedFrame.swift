import CFFmpeg
import LecternModel

/// A decoded picture with its presentation time. Holds its own reference to the decoder's
/// buffer (no copy) until released.
public final class DecodedFrame {
    /// Seconds from the start of the clip.
    public let time: Double
    /// Nominal seconds this frame stays on screen (1 / frame rate).
    public let duration: Double
    /// Decoded size (before rotation).
    public let width: Int
    public let height: Int
    /// Clockwise rotation applied when drawing.
    public let rotation: Int
    /// The decode timestamp of the packet it came from (stream time base), for seeking.
    let decodeTimestamp: Int64
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let scaler: FrameScaler

    init(_ frame: UnsafeMutablePointer<AVFrame>, time: Double, duration: Double, rotation: Int, scaler: FrameScaler) {
        self.frame = frame; self.time = time; self.duration = duration
        self.rotation = rotation; self.scaler = scaler
        width = Int(frame.pointee.width); height = Int(frame.pointee.height)
        decodeTimestamp = frame.pointee.pkt_dts
    }

    deinit { av_frame_free(&frame) }

    /// Scales (and turns, when the clip is rotated) the picture into `rect` of `target`, an
    /// XRGB8888 frame, writing nothing outside `rect`. Unrotated clips are scaled straight
    /// into the frame; rotated ones go through a scratch buffer of the rect's size.
    public func draw(into target: Frame, rect: PixelRect) throws {
        guard let f = frame else { throw VideoError("the frame was released") }
        try scaler.draw(f, rotation: rotation, into: target, rect: rect)
    }
}
