import CFFmpeg
import Foundation
import LecternModel

/// The pictures of a file or stream in a container FFmpeg reads (MP4, Matroska/WebM,
/// MPEG-TS, …) as a live share sends them (docs/protocol.md §29.2): its first H.264, VP8 or
/// VP9 video stream, one encoded picture a packet, H.264 as Annex B (MP4's length-prefixed
/// pictures go through FFmpeg's `h264_mp4toannexb`, which puts SPS and PPS before each key
/// frame), each with its time in seconds from the stream's first picture. Read as it comes:
/// no decoding here (`lectern share` is a sender; the appliance decodes).
public final class ShareStreamReader {
    public enum Codec: Sendable { case h264, vp8, vp9 }

    public struct Picture: Sendable {
        public var bytes: [UInt8]
        public var key: Bool
        /// Seconds from the stream's first packet (nil: the container gives no time).
        public var time: Double?
    }

    /// One Opus packet of the stream's first Opus sound, with its time as a picture's.
    public struct Sound: Sendable {
        public var bytes: [UInt8]
        public var time: Double?
    }

    public enum Item: Sendable {
        case picture(Picture)
        case sound(Sound)
    }

    /// The channels of its Opus sound (nil: it has none).
    public let soundChannels: Int?

    public let codec: Codec
    public let width: Int
    public let height: Int
    /// Pictures a second the stream declares (nil: it doesn't).
    public let frameRate: Double?
    /// The container's name as FFmpeg knows it ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", …).
    public let format: String

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var filter: UnsafeMutablePointer<AVBSFContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    private let input: Input
    private let stream: Int32
    private let timeBase: Double
    private let soundStream: Int32
    private let soundTimeBase: Double
    private var first: Double?
    private var queued: [Item] = []
    private var ended = false

    /// Where the bytes come from: a file, or a descriptor (standard input) with bytes
    /// already read from it (`prefix`) served first.
    final class Input {
        let fd: Int32
        var prefix: [UInt8]
        init(fd: Int32, prefix: [UInt8]) { self.fd = fd; self.prefix = prefix }
    }

    /// Opens `path` ("-": standard input, whose first bytes `prefix` were read already).
    public init(path: String, prefix: [UInt8] = []) throws {
        _ = OpenedClip.quietLog
        input = Input(fd: path == "-" ? 0 : -1, prefix: prefix)
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        var ioContext: UnsafeMutablePointer<AVIOContext>?
        var bsfContext: UnsafeMutablePointer<AVBSFContext>?
        var done = false
        defer {
            if !done {
                av_bsf_free(&bsfContext)
                avformat_close_input(&ctx)
                if ioContext != nil { av_freep(&ioContext!.pointee.buffer); avio_context_free(&ioContext) }
            }
        }
        if path == "-" {
            ctx = avformat_alloc_context()
            let size = 64 << 10
            guard let ctx, let buffer = av_malloc(size) else { throw VideoError("out of memory opening standard input") }
            let opaque = Unmanaged.passUnretained(input).toOpaque()
            ioContext = avio_alloc_context(
                buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 0, opaque,
                { opaque, buf, size in
                    let input = Unmanaged<ShareStreamReader.Input>.fromOpaque(opaque!).takeUnretainedValue()
                    if !input.prefix.isEmpty {
                        let n = min(Int(size), input.prefix.count)
                        input.prefix.withUnsafeBytes { buf!.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: n) }
                        input.prefix.removeFirst(n)
                        return Int32(n)
                    }
                    var n: Int
                    repeat { n = read(input.fd, buf, Int(size)) } while n < 0 && errno == EINTR
                    return n > 0 ? Int32(n) : lectern_averror_eof()
                }, nil, nil)
            ctx.pointee.pb = ioContext
            ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        }
        var r = avformat_open_input(&ctx, path == "-" ? "pipe:" : path, nil, nil)
        guard r == 0, let fmt = ctx else { throw VideoError("\(path) is neither raw H.264 nor a video FFmpeg reads (\(ClipDecoder.errorText(r)))") }
        r = avformat_find_stream_info(fmt, nil)
        guard r >= 0 else { throw VideoError("\(path) is neither raw H.264 nor a video FFmpeg reads (it finds no stream in it)") }
        var index: Int32 = -1
        var found: Codec?
        for i in 0..<Int(fmt.pointee.nb_streams) {
            guard let par = fmt.pointee.streams[i]?.pointee.codecpar, par.pointee.codec_type == AVMEDIA_TYPE_VIDEO else { continue }
            switch par.pointee.codec_id {
            case AV_CODEC_ID_H264: found = .h264
            case AV_CODEC_ID_VP8: found = .vp8
            case AV_CODEC_ID_VP9: found = .vp9
            default: continue
            }
            index = Int32(i)
            break
        }
        var sound: Int32 = -1
        for i in 0..<Int(fmt.pointee.nb_streams) {
            guard let par = fmt.pointee.streams[i]?.pointee.codecpar, par.pointee.codec_type == AVMEDIA_TYPE_AUDIO,
                par.pointee.codec_id == AV_CODEC_ID_OPUS, (1...2).contains(par.pointee.ch_layout.nb_channels)
            else { continue }
            sound = Int32(i)
            break
        }
        soundStream = sound
        soundTimeBase = sound >= 0 ? av_q2d(fmt.pointee.streams[Int(sound)]!.pointee.time_base) : 1
        soundChannels = sound >= 0 ? Int(fmt.pointee.streams[Int(sound)]!.pointee.codecpar.pointee.ch_layout.nb_channels) : nil
        guard let found, index >= 0, let st = fmt.pointee.streams[Int(index)], let par = st.pointee.codecpar else {
            throw VideoError("\(path) has no H.264, VP8 or VP9 video stream (a share sends one of those)")
        }
        codec = found
        stream = index
        width = Int(par.pointee.width)
        height = Int(par.pointee.height)
        timeBase = av_q2d(st.pointee.time_base)
        let rate = st.pointee.avg_frame_rate.num > 0 ? st.pointee.avg_frame_rate : st.pointee.r_frame_rate
        frameRate = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : nil
        format = String(cString: fmt.pointee.iformat.pointee.name)
        if found == .h264, let extra = par.pointee.extradata, par.pointee.extradata_size > 0, extra[0] == 1 {
            // MP4/Matroska carry length-prefixed pictures (avcC): to Annex B.
            guard let bsf = av_bsf_get_by_name("h264_mp4toannexb") else { throw VideoError("this FFmpeg has no h264_mp4toannexb") }
            guard av_bsf_alloc(bsf, &bsfContext) == 0, let f = bsfContext else { throw VideoError("out of memory") }
            avcodec_parameters_copy(f.pointee.par_in, par)
            f.pointee.time_base_in = st.pointee.time_base
            guard av_bsf_init(f) == 0 else { throw VideoError("the stream's H.264 can't be made Annex B") }
        }
        packet = av_packet_alloc()
        context = fmt
        io = ioContext
        filter = bsfContext
        done = true
    }

    deinit {
        av_bsf_free(&filter)
        av_packet_free(&packet)
        avformat_close_input(&context)
        if io != nil {
            av_freep(&io!.pointee.buffer)
            avio_context_free(&io)
        }
    }

    /// The next picture (its sound skipped), or nil at the end of the stream.
    public func next() throws -> Picture? {
        while let item = try nextItem() {
            if case .picture(let p) = item { return p }
        }
        return nil
    }

    /// The next picture or piece of sound, in the stream's order, or nil at its end.
    public func nextItem() throws -> Item? {
        while queued.isEmpty {
            guard !ended, let ctx = context, let pkt = packet else { return nil }
            let r = av_read_frame(ctx, pkt)
            if r < 0 {
                ended = true
                if let f = filter {
                    av_bsf_send_packet(f, nil)
                    drain(f)
                }
                break
            }
            defer { av_packet_unref(pkt) }
            if pkt.pointee.stream_index == soundStream {
                let bytes = Array(UnsafeBufferPointer(start: pkt.pointee.data, count: Int(pkt.pointee.size)))
                queued.append(.sound(Sound(bytes: bytes, time: time(pkt, soundTimeBase))))
                continue
            }
            guard pkt.pointee.stream_index == stream else { continue }
            if let f = filter {
                guard av_bsf_send_packet(f, pkt) == 0 else { throw VideoError("a damaged H.264 picture in the stream") }
                drain(f)
            } else {
                queued.append(.picture(picture(pkt)))
            }
        }
        return queued.isEmpty ? nil : queued.removeFirst()
    }

    private func drain(_ f: UnsafeMutablePointer<AVBSFContext>) {
        guard let out = av_packet_alloc() else { return }
        var o: UnsafeMutablePointer<AVPacket>? = out
        defer { av_packet_free(&o) }
        while av_bsf_receive_packet(f, out) == 0 {
            queued.append(.picture(picture(out)))
            av_packet_unref(out)
        }
    }

    private func picture(_ p: UnsafeMutablePointer<AVPacket>) -> Picture {
        let bytes = Array(UnsafeBufferPointer(start: p.pointee.data, count: Int(p.pointee.size)))
        return Picture(bytes: bytes, key: p.pointee.flags & AV_PKT_FLAG_KEY != 0, time: time(p, timeBase))
    }

    /// Seconds from the first packet (of any stream), in decoding order.
    private func time(_ p: UnsafeMutablePointer<AVPacket>, _ base: Double) -> Double? {
        let ts = p.pointee.dts != Int64.min ? p.pointee.dts : p.pointee.pts
        guard ts != Int64.min else { return nil }
        let t = Double(ts) * base
        if first == nil { first = t }
        return t - first!
    }
}
