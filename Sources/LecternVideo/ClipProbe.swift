import CFFmpeg
import LecternModel

public enum ClipProbe {
    /// What the projector plays: up to 1080p (either way round) and 60 frames a second.
    public struct Limits: Equatable, Sendable {
        public var maxPixels: Int
        public var maxLongSide: Int
        public var maxFrameRate: Double
        public init(maxPixels: Int = 1920 * 1088, maxLongSide: Int = 1920, maxFrameRate: Double = 60.5) {
            self.maxPixels = maxPixels; self.maxLongSide = maxLongSide; self.maxFrameRate = maxFrameRate
        }
    }

    /// Opens `path` as `ClipDecoder` does, describes its video and decodes its first frame.
    /// Throws `ContentError` (mostly `.unsupportedMedia(detail:)`) saying why it can't play:
    /// not a video, no video stream, a codec that can't be decoded, too big or too fast,
    /// no picture decodable.
    public static func probe(path: String, limits: Limits = Limits()) throws -> ClipInfo {
        let decoder = try ClipDecoder(path: path)
        defer { decoder.close() }
        let info = decoder.info
        let long = max(info.width, info.height)
        if info.width * info.height > limits.maxPixels || long > limits.maxLongSide {
            throw ContentError.unsupportedMedia(
                detail:
                    "the video is \(info.width)×\(info.height), larger than the projector plays (1920×1080): export it at 1080p")
        }
        if info.frameRate > limits.maxFrameRate {
            throw ContentError.unsupportedMedia(
                detail:
                    "the video has \(Int(info.frameRate.rounded())) frames a second, more than the 60 the projector plays")
        }
        let first: DecodedFrame?
        do { first = try decoder.nextFrame() } catch {
            throw ContentError.unsupportedMedia(detail: "its video can't be decoded (\(error))")
        }
        guard let frame = first else {
            throw ContentError.unsupportedMedia(detail: "no picture in it can be decoded: the file is damaged")
        }
        // The picture format must be one the scaler converts.
        let scratch = Frame(width: 16, height: 16)
        do { try frame.draw(into: scratch, rect: scratch.bounds) } catch {
            throw ContentError.unsupportedMedia(detail: "\(error)")
        }
        return info
    }

    /// Demuxers that read a still picture or text, not a clip.
    static let stillFormats: Set<String> = ["image2", "image2pipe", "tty", "apng", "gif", "webp_pipe", "ico", "mpjpeg"]

    /// The name of the container FFmpeg reads `path` as (`"mpegts"`, `"mov,mp4,m4a,3gp,3g2,mj2"`,
    /// `"matroska,webm"`, `"avi"` …), or nil when FFmpeg doesn't recognise it or reads it
    /// as a still picture or text. Says nothing about whether it plays: `probe` does that.
    public static func container(path: String) -> String? {
        _ = OpenedClip.quietLog
        var fmt: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&fmt, path, nil, nil) == 0, let f = fmt else { return nil }
        defer { avformat_close_input(&fmt) }
        let name = String(cString: f.pointee.iformat.pointee.name)
        if stillFormats.contains(name) || name.hasSuffix("_pipe") { return nil }
        return name
    }
}
