import CFFmpeg
import Foundation
import LecternModel

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
/// one thread and hands it to the stage's, hence Sendable unchecked). A damaged stream never traps:
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
    /// A packet was sent to the decoder since it was opened (its threads are fixed then).
    private var fed = false
    /// The `thread_count` the decoder was opened with (0: FFmpeg's pick).
    private var openedWith = ClipThreads.alone.decoder
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
        let opened = try OpenedClip.open(path: path)
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

    // MARK: threads

    /// The decoder's threads (FFmpeg's `thread_count` once open: what it picked for 0).
    public var decodingThreads: Int { Int(codec?.pointee.thread_count ?? 0) }
    /// The scaler's slice threads.
    public var scalingThreads: Int { scaler.threads }

    /// Decodes and scales on `threads` (a pane's share of the cores, `ClipThreads`). The
    /// scaler follows at its next picture; the decoder is opened again with its share if
    /// nothing was sent to it yet, and keeps its threads otherwise (a clip already playing is
    /// not interrupted). Threads the decoder starts inherit the caller's nice value.
    public func useThreads(_ threads: ClipThreads) {
        guard !isClosed else { return }
        scaler.threads = threads.scaler
        guard !fed, threads.decoder != openedWith, let fmt = format, let old = codec, let stream = fmt.pointee.streams[Int(streamIndex)]
        else { return }
        guard let fresh = try? OpenedClip.openDecoder(old.pointee.codec, for: stream, threads: threads.decoder) else { return }
        avcodec_free_context(&codec)
        codec = fresh
        openedWith = threads.decoder
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
                Double(pkt.pointee.pts - (startTimestamp ?? 0)) * timeBase < before - info.frameDuration
            {
                ctx.pointee.skip_frame = AVDISCARD_NONREF
            } else {
                ctx.pointee.skip_frame = AVDISCARD_DEFAULT
            }
            fed = true
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
            let dts =
                first.decodeTimestamp != Self.noPTS
                ? first.decodeTimestamp
                : base + Int64((first.time / timeBase).rounded(.down))
            maxTs = min(maxTs, dts) - frameTicks << attempt
        }
        // From the very start.
        try rewind()
        skipBefore = target - d / 2
        var first = decodeNext()
        if let f = first, f.time >= target + d / 2, fmt.pointee.iformat.pointee.flags & AVFMT_NO_BYTE_SEEK == 0,
            avformat_seek_file(fmt, -1, Int64.min, 0, Int64.max, AVSEEK_FLAG_BYTE) >= 0
        {
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
