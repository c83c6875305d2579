import CFFmpeg
import Foundation
import LecternModel

/// A live share's sound decoder (docs/protocol.md §29.9): Opus packets as they arrive, out
/// as 48 kHz stereo S16 interleaved (what clips' sound plays, `AudioDecoder.sampleRate`,
/// `.channels`). FFmpeg's own Opus decoder, any error it reports ends the sound
/// (`AV_EF_EXPLODE`), at most 120 ms out of one packet. Run where the share's pictures are
/// decoded (its decoder process, `ShareDecoderMain`).
public final class ShareAudioDecoder {
    private var ctx: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var swr: OpaquePointer?
    public let channels: Int
    /// Samples (per channel) one packet may give at most: 120 ms.
    public static let maxFrames = AudioDecoder.sampleRate * 12 / 100

    public init(channels: Int) throws {
        _ = OpenedClip.quietLog
        self.channels = channels
        guard let dec = avcodec_find_decoder(AV_CODEC_ID_OPUS), let c = avcodec_alloc_context3(dec) else {
            throw VideoError("this appliance's FFmpeg has no Opus decoder")
        }
        ctx = c
        c.pointee.sample_rate = Int32(AudioDecoder.sampleRate)
        av_channel_layout_default(&c.pointee.ch_layout, Int32(channels))
        c.pointee.err_recognition = AV_EF_EXPLODE
        guard avcodec_open2(c, dec, nil) >= 0 else {
            close()
            throw VideoError("the Opus decoder can't be opened")
        }
        var out = AVChannelLayout()
        av_channel_layout_default(&out, Int32(AudioDecoder.channels))
        guard swr_alloc_set_opts2(&swr, &out, AV_SAMPLE_FMT_S16, Int32(AudioDecoder.sampleRate), &c.pointee.ch_layout, c.pointee.sample_fmt, c.pointee.sample_rate, 0, nil) >= 0,
            swr != nil, swr_init(swr) >= 0
        else {
            close()
            throw VideoError("the share's sound can't be resampled")
        }
        packet = av_packet_alloc()
        frame = av_frame_alloc()
        guard packet != nil, frame != nil else {
            close()
            throw VideoError("out of memory opening the Opus decoder")
        }
    }

    deinit { close() }

    public func close() {
        swr_free(&swr)
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&ctx)
    }

    /// Decodes one packet into `out` (room for `maxFrames` stereo frames); returns the
    /// frames written. Throws when the packet is damaged.
    public func decode(_ data: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<Int16>) throws -> Int {
        guard let ctx, let pkt = packet, let fr = frame, let swr else { throw VideoError("the Opus decoder is closed") }
        guard av_new_packet(pkt, Int32(data.count)) == 0 else { throw VideoError("out of memory for a sound packet") }
        defer { av_packet_unref(pkt) }
        if let base = data.baseAddress { pkt.pointee.data.update(from: base.assumingMemoryBound(to: UInt8.self), count: data.count) }
        let s = avcodec_send_packet(ctx, pkt)
        if s < 0 && s != lectern_averror_eagain() { throw VideoError("the Opus decoder refused a packet: \(ClipDecoder.errorText(s))") }
        var written = 0
        while true {
            let r = avcodec_receive_frame(ctx, fr)
            if r == lectern_averror_eagain() || r == lectern_averror_eof() { break }
            if r < 0 { throw VideoError("the Opus decoder failed: \(ClipDecoder.errorText(r))") }
            defer { av_frame_unref(fr) }
            let room = Self.maxFrames - written
            guard room > 0 else { break }
            var o: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(out + written * AudioDecoder.channels).assumingMemoryBound(to: UInt8.self)
            let got = fr.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { input in
                swr_convert(swr, &o, Int32(room), input, fr.pointee.nb_samples)
            }
            if got > 0 { written += Int(got) }
        }
        return written
    }

    /// `decode` into a new array (in this process).
    public func decode(_ data: [UInt8]) throws -> [Int16] {
        var out = [Int16](repeating: 0, count: Self.maxFrames * AudioDecoder.channels)
        let n = try out.withUnsafeMutableBufferPointer { o in try data.withUnsafeBytes { try decode($0, into: o.baseAddress!) } }
        return Array(out.prefix(n * AudioDecoder.channels))
    }
}
