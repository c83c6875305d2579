import CFFmpeg
import Foundation
import LecternModel

/// One live share's decoder (docs/protocol.md §29.3): libavcodec fed encoded pictures as
/// they arrive, one at a time (no file, no demuxer), answering the newest picture decoded.
/// Built for hostile input: the decoder refuses pictures past `maxPixels` before it
/// allocates them (`max_pixels`), every picture's size is checked again, and any error the
/// decoder reports ends the stream (`AV_EF_EXPLODE`): a damaged share is ended, never
/// patched over. One thread, low delay: a picture out for every picture in.
public final class ShareDecoder {
    public enum Codec: Sendable {
        case h264, vp8, vp9
        var id: AVCodecID {
            switch self {
            case .h264: return AV_CODEC_ID_H264
            case .vp8: return AV_CODEC_ID_VP8
            case .vp9: return AV_CODEC_ID_VP9
            }
        }
    }

    private var ctx: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var received: UnsafeMutablePointer<AVFrame>?
    /// The newest picture decoded (kept until the next one).
    private(set) var latest: UnsafeMutablePointer<AVFrame>?
    public let maxSide: Int
    public let maxPixels: Int
    private let scaler = FrameScaler()

    public init(codec: Codec, maxSide: Int, maxPixels: Int) throws {
        _ = OpenedClip.quietLog
        self.maxSide = maxSide
        self.maxPixels = maxPixels
        guard let decoder = avcodec_find_decoder(codec.id) else { throw VideoError("this appliance's FFmpeg has no \(codec) decoder") }
        guard let c = avcodec_alloc_context3(decoder) else { throw VideoError("out of memory opening the decoder") }
        ctx = c
        c.pointee.thread_count = 1
        c.pointee.flags |= AV_CODEC_FLAG_LOW_DELAY
        c.pointee.err_recognition = AV_EF_EXPLODE
        c.pointee.max_pixels = Int64(maxPixels)
        let e = avcodec_open2(c, decoder, nil)
        guard e >= 0 else {
            close()
            throw VideoError("the \(codec) decoder can't be opened (\(ClipDecoder.errorText(e)))")
        }
        packet = av_packet_alloc()
        received = av_frame_alloc()
        latest = av_frame_alloc()
        guard packet != nil, received != nil, latest != nil else {
            close()
            throw VideoError("out of memory opening the decoder")
        }
    }

    deinit { close() }

    public func close() {
        scaler.release()
        av_frame_free(&latest)
        av_frame_free(&received)
        av_packet_free(&packet)
        avcodec_free_context(&ctx)
    }

    /// Decodes one encoded picture; true when a new picture is in `latest`. Throws (with a
    /// sentence for people) when the stream is damaged or too large.
    public func decode(_ data: [UInt8]) throws -> Bool {
        try data.withUnsafeBytes { try decode($0) }
    }

    /// `decode` of bytes in place (a decoder process's shared input).
    public func decode(_ data: UnsafeRawBufferPointer) throws -> Bool {
        guard let ctx, let pkt = packet, let frame = received, let latest else { throw VideoError("the decoder is closed") }
        guard av_new_packet(pkt, Int32(data.count)) == 0 else { throw VideoError("out of memory for a picture of \(data.count) bytes") }
        defer { av_packet_unref(pkt) }
        if let base = data.baseAddress { pkt.pointee.data.update(from: base.assumingMemoryBound(to: UInt8.self), count: data.count) }
        let s = avcodec_send_packet(ctx, pkt)
        if s < 0 && s != lectern_averror_eagain() { throw VideoError("the decoder refused a picture: \(ClipDecoder.errorText(s))") }
        var got = false
        while true {
            let r = avcodec_receive_frame(ctx, frame)
            if r == lectern_averror_eagain() || r == lectern_averror_eof() { break }
            if r < 0 { throw VideoError("the decoder failed: \(ClipDecoder.errorText(r))") }
            let w = Int(frame.pointee.width), h = Int(frame.pointee.height)
            guard w > 0, h > 0, max(w, h) <= maxSide, w * h <= maxPixels else {
                av_frame_unref(frame)
                throw VideoError("a picture of \(w)×\(h) is larger than the share's limit")
            }
            av_frame_unref(latest)
            av_frame_move_ref(latest, frame)
            got = true
        }
        return got
    }

    /// Whether a picture has been decoded (and can be drawn).
    public var hasPicture: Bool { latest.map { $0.pointee.width > 0 && $0.pointee.height > 0 } ?? false }

    /// Draws the newest picture into `target`, fitted aspect-preserving (its sample aspect
    /// ratio too) with exact bars of `background`; false when there is none yet.
    public func draw(into target: Frame, background: RGB) throws -> Bool {
        guard let latest, hasPicture else { return false }
        var aspect = Double(latest.pointee.width) / Double(latest.pointee.height)
        let sar = latest.pointee.sample_aspect_ratio
        if sar.num > 0, sar.den > 0 { aspect *= Double(sar.num) / Double(sar.den) }
        let rect = Fit.rect(aspect: aspect, in: target.bounds)
        try scaler.draw(latest, rotation: 0, into: target, rect: rect)
        target.fillBars(around: rect, background)
        return true
    }
}
