import CFFmpeg
import Foundation
import LecternCore

/// One clip open for decoding: libavformat demuxes, libavcodec decodes (frame threading on),
/// and each `DecodedFrame` scales itself with libswscale into a rectangle of an output frame.
///
/// Times are seconds from the start of the stream: `best_effort_timestamp × time_base` minus
/// the stream's start time. Raw Annex B streams (.h264) carry no timestamps: their frames are
/// numbered in display order and timed `n / frameRate` (the rate from the SPS timing info,
/// 25 when absent), and their duration is counted from the frames when the clip opens.
///
/// Seeking is exact: to the keyframe before (checked: if the keyframe found shows after the
/// target, as seeks by decode time (MPEG-TS) can, it looks further back), then decoding
/// forward and dropping what shows before (non-reference frames well before the target are
/// not even decoded). Raw streams can only be read again from the first byte.
///
/// Not thread-safe: one thread at a time decodes, seeks and draws (the service opens it on
/// one thread and hands it to the stage's, hence `@unchecked Sendable`). A damaged stream never traps:
/// packets that fail to decode are skipped and counted (`decodeErrors`), and a read error
/// ends the stream as if it were the end (`readError` says why).
public final class ClipDecoder: @unchecked Sendable {
    public let path: String
    public let info: ClipInfo
    /// Packets or frames the decoder rejected (a damaged stream); playback goes on past them.
    public private(set) var decodeErrors = 0
    /// Why reading stopped before the end of the file, when it did (a truncated or damaged
    /// file); nil for a clean end.
    public private(set) var readError: String?
    public private(set) var isClosed = false

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var received: UnsafeMutablePointer<AVFrame>?
    private let streamIndex: Int32
    private let timeBase: Double
    /// The stream's first timestamp (time_base units); nil until known.
    private var startTimestamp: Int64?
    /// Raw streams: frames are timed by their number.
    private let untimed: Bool
    private let scaler = FrameScaler()

    private var demuxEnded = false
    private var drainSent = false
    private var decoderEnded = false
    private var consecutiveErrors = 0
    private var framesOut = 0
    private var lastTime: Double?
    /// The frame `seek` landed on, handed out by the next `nextFrame`.
    private var pending: DecodedFrame?
    /// While seeking: packets showing before this time need not be output (non-reference
    /// frames among them are skipped).
    private var skipBefore: Double?

    /// Opens `path`, picks its best video stream and opens a decoder for it.
    /// Throws `ContentError` (`.empty`, `.unreadable`, `.unsupportedMedia`) saying why not.
    public init(path: String) throws {
        self.path = path
        let opened = try Opened.open(path: path)
        format = opened.format; codec = opened.codec; packet = opened.packet; received = opened.frame
        streamIndex = opened.streamIndex
        timeBase = opened.timeBase
        startTimestamp = opened.startTimestamp
        untimed = opened.untimed
        info = opened.info
    }

    deinit { close() }

    /// Frees the decoder, the demuxer, the scaler and every buffer. Frames handed out before
    /// stay valid (they hold their own references) but draw through a fresh scaler.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        pending = nil
        av_frame_free(&received)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        avformat_close_input(&format)
        scaler.release()
    }

    // MARK: decoding

    /// The next frame in display order, or nil at the end of the stream (or the point where
    /// a damaged file can't be read any more).
    public func nextFrame() throws -> DecodedFrame? {
        guard !isClosed else { throw VideoError("the clip is closed") }
        if let p = pending { pending = nil; return p }
        return decodeNext()
    }

    private func decodeNext() -> DecodedFrame? {
        guard let ctx = codec, let frame = received, !decoderEnded else { return nil }
        while true {
            let r = avcodec_receive_frame(ctx, frame)
            if r == 0 {
                consecutiveErrors = 0
                return wrap(frame)
            }
            if r == lectern_averror_eof() { decoderEnded = true; return nil }
            if r != lectern_averror_eagain() {
                decodeErrors += 1; consecutiveErrors += 1
                if consecutiveErrors > 500 {
                    if readError == nil { readError = "the decoder failed on every frame (\(Self.errorText(r)))" }
                    decoderEnded = true
                    return nil
                }
                continue
            }
            // The decoder wants input.
            if drainSent { decoderEnded = true; return nil }
            if !feedPacket() {
                avcodec_send_packet(ctx, nil)   // drain the frames still inside
                drainSent = true
            }
        }
    }

    /// Sends the next video packet to the decoder; false when the file has no more.
    private func feedPacket() -> Bool {
        guard let fmt = format, let ctx = codec, let pkt = packet, !demuxEnded else { return false }
        while true {
            let r = av_read_frame(fmt, pkt)
            if r < 0 {
                demuxEnded = true
                if r != lectern_averror_eof(), readError == nil {
                    readError = "the file can't be read past \(String(format: "%.2f", lastTime ?? 0)) s (\(Self.errorText(r)))"
                }
                return false
            }
            defer { av_packet_unref(pkt) }
            guard pkt.pointee.stream_index == streamIndex else { continue }
            if let before = skipBefore, !untimed, pkt.pointee.pts != Self.noPTS,
               Double(pkt.pointee.pts - (startTimestamp ?? 0)) * timeBase < before - info.frameDuration {
                ctx.pointee.skip_frame = AVDISCARD_NONREF
            } else {
                ctx.pointee.skip_frame = AVDISCARD_DEFAULT
            }
            let s = avcodec_send_packet(ctx, pkt)
            if s < 0 && s != lectern_averror_eagain() { decodeErrors += 1 }
            return true
        }
    }

    private func wrap(_ frame: UnsafeMutablePointer<AVFrame>) -> DecodedFrame {
        let d = info.frameDuration
        var ts = frame.pointee.best_effort_timestamp
        if ts == Self.noPTS { ts = frame.pointee.pts }
        var time: Double
        if untimed {
            time = Double(framesOut) * d
        } else if ts == Self.noPTS {
            time = (lastTime ?? -d) + d
        } else {
            if startTimestamp == nil { startTimestamp = ts }
            time = Double(ts - startTimestamp!) * timeBase
        }
        // Display order means rising times; a damaged stream may say otherwise.
        if let last = lastTime, time <= last { time = last + d }
        framesOut += 1
        lastTime = time
        let own = av_frame_alloc()!
        av_frame_move_ref(own, frame)
        return DecodedFrame(own, time: time, duration: d, rotation: info.rotation, scaler: scaler)
    }

    // MARK: seeking

    /// Positions the clip so that the next `nextFrame()` returns the frame shown at
    /// `seconds` (the frame whose timestamp is nearest; the last frame past the end).
    /// Seeks to the keyframe before, then decodes forward, dropping the frames before.
    public func seek(to seconds: Double) throws {
        guard !isClosed, let fmt = format else { throw VideoError("the clip is closed") }
        let target = seconds.isFinite ? max(0, seconds) : 0
        let d = info.frameDuration
        pending = nil
        if untimed {
            try rewind()
            land(on: target, first: nil)
            return
        }
        let base = startTimestamp ?? 0
        let frameTicks = max(1, Int64((d / timeBase).rounded()))
        var maxTs = base + Int64((target / timeBase).rounded(.down))
        // Seeking finds a keyframe by its decode time (the MP4 index, MPEG-TS's search, which
        // is approximate too), so it can show after the target. Then look again before that
        // keyframe's decode time, further back each time.
        for attempt in 0..<6 {
            guard avformat_seek_file(fmt, streamIndex, Int64.min, maxTs, maxTs, 0) >= 0 else { break }
            resetDecoder()
            skipBefore = target - d / 2
            guard let first = decodeNext() else {
                maxTs -= frameTicks << (attempt + 3)
                continue
            }
            if first.time < target + d / 2 {
                land(on: target, first: first)
                return
            }
            let dts = first.decodeTimestamp != Self.noPTS ? first.decodeTimestamp
                : base + Int64((first.time / timeBase).rounded(.down))
            maxTs = min(maxTs, dts) - frameTicks << attempt
        }
        // From the very start.
        try rewind()
        skipBefore = target - d / 2
        var first = decodeNext()
        if let f = first, f.time >= target + d / 2, fmt.pointee.iformat.pointee.flags & AVFMT_NO_BYTE_SEEK == 0,
           avformat_seek_file(fmt, -1, Int64.min, 0, Int64.max, AVSEEK_FLAG_BYTE) >= 0 {
            resetDecoder()
            first = decodeNext()
        }
        land(on: target, first: first)
        if pending == nil { throw VideoError("no frame to show at \(target) s") }
    }

    /// Decodes forward from `first` to the frame nearest `target` and keeps it pending.
    private func land(on target: Double, first: DecodedFrame?) {
        let d = info.frameDuration
        skipBefore = target - d / 2
        defer { skipBefore = nil }
        var last: DecodedFrame?
        var next = first ?? decodeNext()
        while let f = next {
            // Nearest frame; an exact tie goes to the later one (round half up).
            if f.time >= target - d / 2 + 1e-6 { pending = f; return }
            last = f
            next = decodeNext()
        }
        pending = last
    }

    /// Back to the first byte (raw streams) or before the first timestamp.
    private func rewind() throws {
        guard let fmt = format else { throw VideoError("the clip is closed") }
        var r: Int32
        if untimed {
            r = avformat_seek_file(fmt, -1, Int64.min, 0, Int64.max, AVSEEK_FLAG_BYTE)
        } else {
            // The first keyframe decodes before the stream's start time (B-frames): aim a
            // second earlier.
            let base = startTimestamp ?? 0
            r = avformat_seek_file(fmt, streamIndex, Int64.min, base - Int64(1 / timeBase), base, 0)
            if r < 0 { r = av_seek_frame(fmt, streamIndex, base, AVSEEK_FLAG_BACKWARD) }
            if r < 0 { r = avformat_seek_file(fmt, -1, Int64.min, 0, Int64.max, AVSEEK_FLAG_BYTE) }
        }
        guard r >= 0 else { throw VideoError("this clip can't be positioned (\(Self.errorText(r)))") }
        resetDecoder()
        framesOut = 0
    }

    private func resetDecoder() {
        if let ctx = codec { avcodec_flush_buffers(ctx) }
        demuxEnded = false; drainSent = false; decoderEnded = false
        readError = nil; consecutiveErrors = 0; lastTime = nil
        pending = nil
    }

    // MARK: helpers

    static let noPTS = Int64.min   // AV_NOPTS_VALUE

    static func errorText(_ code: Int32) -> String {
        var buf = [CChar](repeating: 0, count: 128)
        av_strerror(code, &buf, buf.count)
        return String(cString: buf)
    }
}

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

// MARK: - opening

private struct Opened {
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
    static let rawVideoFormats: Set<String> = ["h264", "hevc", "vvc", "m4v", "mpegvideo", "cavsvideo", "vc1",
                                                "avs2", "avs3", "h261", "h263", "dirac", "mjpeg"]

    /// FFmpeg's own log stays quiet but for fatal errors: a damaged clip would flood the
    /// journal with a line per broken macroblock. What matters is reported through
    /// `ContentError`, `VideoError`, `decodeErrors` and `readError`.
    static let quietLog: Void = av_log_set_level(AV_LOG_FATAL)

    static func open(path: String) throws -> Opened {
        var attrs: [FileAttributeKey: Any]
        do { attrs = try FileManager.default.attributesOfItem(atPath: path) } catch {
            throw ContentError.unreadable(path: path, reason: "no such file")
        }
        if (attrs[.size] as? NSNumber)?.intValue == 0 { throw ContentError.empty }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ContentError.unreadable(path: path, reason: "permission denied")
        }

        _ = quietLog
        var o = Opened()
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
        guard let ctx = avcodec_alloc_context3(decoder) else { throw refuse("out of memory opening the decoder") }
        o.codec = ctx
        guard avcodec_parameters_to_context(ctx, par) >= 0 else { throw refuse("its \(codecName) parameters are invalid") }
        ctx.pointee.pkt_timebase = stream.pointee.time_base
        ctx.pointee.thread_count = 0                 // one per core
        ctx.pointee.thread_type = FF_THREAD_FRAME
        let e = avcodec_open2(ctx, decoder, nil)
        guard e >= 0 else { throw refuse("its \(codecName) video can't be decoded (\(ClipDecoder.errorText(e)))") }
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
        let fps = rate(stream.pointee.avg_frame_rate) ?? rate(stream.pointee.r_frame_rate)
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

        o.info = ClipInfo(codec: codecName, width: Int(par.pointee.width), height: Int(par.pointee.height),
                          duration: duration, frameRate: fps, sampleAspect: sar, rotation: rotation,
                          container: container)
        done = true
        return o
    }
}
