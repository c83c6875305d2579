import CFFmpeg
import LecternCore

/// What libavformat says about a clip: enough to refuse what can't play at upload time.
public struct ClipInfo: Equatable, Sendable {
    public var codec: String
    public var width: Int
    public var height: Int
    public var duration: Double
    public var frameRate: Double
}

public enum ClipProbe {
    /// Opens `path` with libavformat and describes its first video stream.
    public static func probe(path: String) throws -> ClipInfo {
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&ctx, path, nil, nil) == 0, let fmt = ctx else {
            throw ContentError.unsupportedMedia(detail: "not a video file FFmpeg can open")
        }
        defer { avformat_close_input(&ctx) }
        guard avformat_find_stream_info(fmt, nil) >= 0 else {
            throw ContentError.unsupportedMedia(detail: "no stream information")
        }
        let index = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0, let stream = fmt.pointee.streams[Int(index)], let par = stream.pointee.codecpar else {
            throw ContentError.unsupportedMedia(detail: "no video stream")
        }
        let codec = String(cString: avcodec_get_name(par.pointee.codec_id))
        let rate = stream.pointee.avg_frame_rate
        let fps = rate.den != 0 ? Double(rate.num) / Double(rate.den) : 0
        let duration = fmt.pointee.duration > 0 ? Double(fmt.pointee.duration) / Double(AV_TIME_BASE) : 0
        return ClipInfo(codec: codec, width: Int(par.pointee.width), height: Int(par.pointee.height),
                        duration: duration, frameRate: fps)
    }
}
