import CFFmpeg
import Foundation

/// A piece of a clip's sound, ready for the device: interleaved signed 16-bit stereo at
/// `AudioDecoder.sampleRate`, starting at clip time `time` (seconds).
public struct AudioChunk: Equatable, Sendable {
    public var time: Double
    public var samples: [Int16]
    public var frames: Int { samples.count / AudioDecoder.channels }
    public var end: Double { time + Double(frames) / Double(AudioDecoder.sampleRate) }
    public init(time: Double, samples: [Int16]) {
        self.time = time
        self.samples = samples
    }
}

/// Decodes a clip's best audio stream with FFmpeg and resamples it with libswresample to
/// what the sound device is opened with (S16 stereo, 48 kHz), whatever the clip carries
/// (AAC, MP3, Opus, …; mono to 7.1; any rate). Its own demuxer on the file, so seeking the
/// sound never disturbs the picture's decoder. A clip without sound, or whose sound can't
/// be decoded, gives nil at `open` (and `whyNot` says why, for the log): it plays silent.
public final class AudioDecoder {
    public static let sampleRate = 48_000
    public static let channels = 2

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var swr: OpaquePointer?
    private let streamIndex: Int32
    private let timeBase: Double
    private let startTime: Double
    /// Clip time of the next sample out, once known.
    private var nextTime: Double?
    /// Samples before this clip time are dropped (after a seek).
    private var trimBefore: Double?
    private var ended = false
    /// A description for the log: codec, channels, rate.
    public let description: String

    /// Opens `path`'s audio; nil (with the reason in `whyNot`) when it has none that decodes.
    public static func open(path: String) -> (decoder: AudioDecoder?, whyNot: String?) {
        _ = OpenedClip.quietLog
        var fmt: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&fmt, path, nil, nil) == 0, let f = fmt else { return (nil, "the file can't be opened") }
        guard avformat_find_stream_info(f, nil) >= 0 else {
            avformat_close_input(&fmt)
            return (nil, "no stream information")
        }
        let index = av_find_best_stream(f, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0, let stream = f.pointee.streams[Int(index)], let par = stream.pointee.codecpar else {
            avformat_close_input(&fmt)
            return (nil, "it has no sound")
        }
        let name = String(cString: avcodec_get_name(par.pointee.codec_id))
        guard let dec = avcodec_find_decoder(par.pointee.codec_id), var ctx = avcodec_alloc_context3(dec) else {
            avformat_close_input(&fmt)
            return (nil, "its sound is \(name), which can't be decoded")
        }
        var ctxOpt: UnsafeMutablePointer<AVCodecContext>? = ctx
        guard avcodec_parameters_to_context(ctx, par) >= 0, avcodec_open2(ctx, dec, nil) >= 0, ctx.pointee.sample_rate > 0 else {
            avcodec_free_context(&ctxOpt)
            avformat_close_input(&fmt)
            return (nil, "its \(name) sound can't be decoded")
        }
        ctx = ctxOpt!
        if ctx.pointee.ch_layout.nb_channels <= 0 { av_channel_layout_default(&ctx.pointee.ch_layout, 1) }
        var out = AVChannelLayout()
        av_channel_layout_default(&out, Int32(channels))
        var swr: OpaquePointer?
        let r = swr_alloc_set_opts2(
            &swr, &out, AV_SAMPLE_FMT_S16, Int32(sampleRate),
            &ctx.pointee.ch_layout, ctx.pointee.sample_fmt, ctx.pointee.sample_rate, 0, nil)
        guard r >= 0, swr != nil, swr_init(swr) >= 0 else {
            swr_free(&swr)
            avcodec_free_context(&ctxOpt)
            avformat_close_input(&fmt)
            return (nil, "its \(name) sound can't be resampled")
        }
        let tb = stream.pointee.time_base
        let timeBase = tb.num > 0 && tb.den > 0 ? Double(tb.num) / Double(tb.den) : 1.0 / Double(AV_TIME_BASE)
        // Clip time 0 is the picture's first frame: the container's start, as the video decoder counts it.
        let vIndex = av_find_best_stream(f, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        var start = 0.0
        if vIndex >= 0, let vs = f.pointee.streams[Int(vIndex)], vs.pointee.start_time != ClipDecoder.noPTS {
            let vtb = vs.pointee.time_base
            if vtb.num > 0, vtb.den > 0 { start = Double(vs.pointee.start_time) * Double(vtb.num) / Double(vtb.den) }
        }
        let desc = "\(name), \(ctx.pointee.ch_layout.nb_channels) ch, \(ctx.pointee.sample_rate) Hz"
        let d = AudioDecoder(
            format: f, codec: ctx, swr: swr, streamIndex: index, timeBase: timeBase, startTime: start, description: desc)
        return (d, nil)
    }

    private init(
        format: UnsafeMutablePointer<AVFormatContext>, codec: UnsafeMutablePointer<AVCodecContext>, swr: OpaquePointer?,
        streamIndex: Int32, timeBase: Double, startTime: Double, description: String
    ) {
        self.format = format
        self.codec = codec
        self.swr = swr
        self.streamIndex = streamIndex
        self.timeBase = timeBase
        self.startTime = startTime
        self.description = description
        packet = av_packet_alloc()
        frame = av_frame_alloc()
    }

    deinit { close() }

    public func close() {
        swr_free(&swr)
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        avformat_close_input(&format)
    }

    /// The next piece of sound, nil at the end (or when the rest can't be read).
    public func next() -> AudioChunk? {
        guard let ctx = codec, let fr = frame else { return nil }
        while true {
            let r = avcodec_receive_frame(ctx, fr)
            if r == 0 {
                defer { av_frame_unref(fr) }
                if let chunk = convert(fr) { return chunk }
                continue
            }
            if r == lectern_averror_eof() || ended { return nil }
            if r != lectern_averror_eagain() { return nil }
            feed()
        }
    }

    private func feed() {
        guard let fmt = format, let pkt = packet, let ctx = codec else { ended = true; return }
        while true {
            if av_read_frame(fmt, pkt) < 0 {
                avcodec_send_packet(ctx, nil)   // drain
                ended = true
                return
            }
            defer { av_packet_unref(pkt) }
            if pkt.pointee.stream_index == streamIndex {
                _ = avcodec_send_packet(ctx, pkt)
                return
            }
        }
    }

    private func convert(_ fr: UnsafeMutablePointer<AVFrame>) -> AudioChunk? {
        let pts = fr.pointee.best_effort_timestamp
        if nextTime == nil || trimBefore != nil, pts != ClipDecoder.noPTS {
            nextTime = Double(pts) * timeBase - startTime
        }
        let inFrames = fr.pointee.nb_samples
        let capacity = Int(swr_get_out_samples(swr, inFrames))
        guard capacity > 0 else { return nil }
        var out = [Int16](repeating: 0, count: capacity * Self.channels)
        let got: Int32 = out.withUnsafeMutableBytes { buf in
            var o: UnsafeMutablePointer<UInt8>? = buf.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return fr.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { input in
                swr_convert(swr, &o, Int32(capacity), input, inFrames)
            }
        }
        guard got > 0 else { return nil }
        out.removeLast(out.count - Int(got) * Self.channels)
        let time = nextTime ?? 0
        nextTime = time + Double(got) / Double(Self.sampleRate)
        var chunk = AudioChunk(time: time, samples: out)
        if let cut = trimBefore {
            if chunk.end <= cut { return nil }
            let skip = max(0, Int(((cut - time) * Double(Self.sampleRate)).rounded()))
            if skip > 0 {
                chunk = AudioChunk(time: time + Double(skip) / Double(Self.sampleRate), samples: Array(out[(skip * Self.channels)...]))
            }
            trimBefore = nil
        }
        return chunk
    }

    /// Seconds from the picture's start; the next chunk starts there (to the sample).
    public func seek(to seconds: Double) {
        guard let fmt = format, let ctx = codec else { return }
        let target = seconds.isFinite ? max(0, seconds) : 0
        let ts = Int64(((target + startTime) / timeBase).rounded(.down))
        avformat_seek_file(fmt, streamIndex, Int64.min, ts, ts, 0)
        avcodec_flush_buffers(ctx)
        swr_close(swr)
        swr_init(swr)
        ended = false
        nextTime = nil
        trimBefore = target
    }
}
