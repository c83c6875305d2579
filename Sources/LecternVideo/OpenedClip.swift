import CFFmpeg
import Foundation
import LecternModel

/// Opening a clip for `ClipDecoder`: checks the file, opens the demuxer and the decoder of
/// its best video stream and reads what the clip is (`ClipInfo`: codec, size, duration,
/// frame rate, aspect, rotation). On any failure, frees what it opened and throws a
/// `ContentError` saying why, in words for the presenter.
struct OpenedClip {
    var format: UnsafeMutablePointer<AVFormatContext>?
    var codec: UnsafeMutablePointer<AVCodecContext>?
    var packet: UnsafeMutablePointer<AVPacket>?
    var frame: UnsafeMutablePointer<AVFrame>?
    var streamIndex: Int32 = -1
    var timeBase = 1.0
    var startTimestamp: Int64?
    var untimed = false
    var info = ClipInfo(codec: "", width: 0, height: 0, duration: 0, frameRate: 25)

    mutating func free() {
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        avformat_close_input(&format)
    }

    static func refuse(_ detail: String) -> ContentError { .unsupportedMedia(detail: detail) }

    /// Elementary-stream demuxers: their packets carry no timestamps.
    static let rawVideoFormats: Set<String> = [
        "h264", "hevc", "vvc", "m4v", "mpegvideo", "cavsvideo", "vc1",
        "avs2", "avs3", "h261", "h263", "dirac", "mjpeg",
    ]

    /// FFmpeg's own log stays quiet but for fatal errors: a damaged clip would flood the
    /// journal with a line per broken macroblock. What matters is reported through
    /// `ContentError`, `VideoError`, `decodeErrors` and `readError`.
    static let quietLog: Void = av_log_set_level(AV_LOG_FATAL)

    /// A decoder for `stream`, open, with frame threading on `threads` threads (0: FFmpeg's
    /// pick, one per core and one more). Threads it starts inherit the caller's nice value.
    static func openDecoder(
        _ decoder: UnsafePointer<AVCodec>, for stream: UnsafeMutablePointer<AVStream>, threads: Int
    ) throws -> UnsafeMutablePointer<AVCodecContext> {
        let codecName = String(cString: avcodec_get_name(decoder.pointee.id))
        guard let ctx = avcodec_alloc_context3(decoder) else { throw refuse("out of memory opening the decoder") }
        var done = false
        defer {
            var owned: UnsafeMutablePointer<AVCodecContext>? = ctx
            if !done { avcodec_free_context(&owned) }
        }
        guard avcodec_parameters_to_context(ctx, stream.pointee.codecpar) >= 0 else {
            throw refuse("its \(codecName) parameters are invalid")
        }
        ctx.pointee.pkt_timebase = stream.pointee.time_base
        ctx.pointee.thread_count = Int32(threads)
        ctx.pointee.thread_type = FF_THREAD_FRAME
        let e = avcodec_open2(ctx, decoder, nil)
        guard e >= 0 else { throw refuse("its \(codecName) video can't be decoded (\(ClipDecoder.errorText(e)))") }
        done = true
        return ctx
    }

    static func open(path: String) throws -> OpenedClip {
        var attrs: [FileAttributeKey: Any]
        do { attrs = try FileManager.default.attributesOfItem(atPath: path) } catch {
            throw ContentError.unreadable(path: path, reason: "no such file")
        }
        if (attrs[.size] as? NSNumber)?.intValue == 0 { throw ContentError.empty }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ContentError.unreadable(path: path, reason: "permission denied")
        }

        _ = quietLog
        var o = OpenedClip()
        var done = false
        defer { if !done { o.free() } }

        let r = avformat_open_input(&o.format, path, nil, nil)
        guard r == 0, let fmt = o.format else {
            throw refuse("it is not a video file (\(ClipDecoder.errorText(r)))")
        }
        guard avformat_find_stream_info(fmt, nil) >= 0 else {
            throw refuse("it is damaged: FFmpeg finds no stream information in it")
        }
        let index = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0, let stream = fmt.pointee.streams[Int(index)], let par = stream.pointee.codecpar else {
            throw refuse("it has no video")
        }
        if stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 {
            throw refuse("it has no video, only a cover picture")
        }
        o.streamIndex = index
        let codecName = String(cString: avcodec_get_name(par.pointee.codec_id))
        guard let decoder = avcodec_find_decoder(par.pointee.codec_id) else {
            throw refuse("its video is \(codecName), which this projector can't decode (use H.264)")
        }
        let ctx = try openDecoder(decoder, for: stream, threads: ClipThreads.alone.decoder)
        o.codec = ctx
        guard par.pointee.width > 0, par.pointee.height > 0 else { throw refuse("its video has no picture size") }

        o.packet = av_packet_alloc()
        o.frame = av_frame_alloc()
        guard o.packet != nil, o.frame != nil else { throw refuse("out of memory opening the decoder") }

        let tb = stream.pointee.time_base
        o.timeBase = tb.num > 0 && tb.den > 0 ? Double(tb.num) / Double(tb.den) : 1.0 / Double(AV_TIME_BASE)
        let start = stream.pointee.start_time
        o.startTimestamp = start == ClipDecoder.noPTS ? nil : start
        let container = String(cString: fmt.pointee.iformat.pointee.name)
        o.untimed = fmt.pointee.iformat.pointee.flags & AVFMT_NOTIMESTAMPS != 0 || rawVideoFormats.contains(container)

        // Frame rate: the stream's average, its base rate, or what the codec says (the SPS).
        func rate(_ q: AVRational) -> Double? {
            guard q.num > 0, q.den > 0 else { return nil }
            let v = Double(q.num) / Double(q.den)
            return v >= 1 && v <= 1000 ? v : nil
        }
        let fps =
            rate(stream.pointee.avg_frame_rate) ?? rate(stream.pointee.r_frame_rate)
            ?? rate(ctx.pointee.framerate) ?? 25

        // Sample aspect ratio: the container's, else the codec's.
        let sarQ = av_guess_sample_aspect_ratio(fmt, stream, nil)
        let sar = sarQ.num > 0 && sarQ.den > 0 ? Double(sarQ.num) / Double(sarQ.den) : 1

        // Rotation: the display matrix says how far the picture turns counter-clockwise.
        var rotation = 0
        var size = 0
        if let m = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 {
            let ccw = m.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
            if ccw.isFinite {
                let cw = Int((-ccw / 90).rounded()) * 90
                rotation = ((cw % 360) + 360) % 360
            }
        }

        var duration = 0.0
        if stream.pointee.duration != ClipDecoder.noPTS, stream.pointee.duration > 0 {
            duration = Double(stream.pointee.duration) * o.timeBase
        } else if fmt.pointee.duration != ClipDecoder.noPTS, fmt.pointee.duration > 0 {
            duration = Double(fmt.pointee.duration) / Double(AV_TIME_BASE)
        } else if o.untimed, let pkt = o.packet {
            // A raw stream: count its frames (the parser splits them; no decoding).
            var frames = 0
            while av_read_frame(fmt, pkt) >= 0 {
                if pkt.pointee.stream_index == index { frames += 1 }
                av_packet_unref(pkt)
            }
            duration = Double(frames) / fps
            guard avformat_seek_file(fmt, -1, Int64.min, 0, Int64.max, AVSEEK_FLAG_BYTE) >= 0 else {
                throw refuse("it can't be read from the start again")
            }
        }

        o.info = ClipInfo(
            codec: codecName, width: Int(par.pointee.width), height: Int(par.pointee.height),
            duration: duration, frameRate: fps, sampleAspect: sar, rotation: rotation,
            container: container)
        done = true
        return o
    }
}
