import CFFmpeg
import Foundation
import LecternCore

/// The decoder thread of a `ShareSource`: takes the pictures in the order they arrived,
/// decodes each, scales the newest into a buffer of the pane's size (the picture fitted
/// aspect-preserving, exact bars) and hands it over; reports each picture handled (the ack
/// and `ShareFlow`'s advice). A new route makes a new decoder. Only this thread uses it.
final class ShareDecodeLoop {
    let source: ShareSource
    private var decoder: ShareDecoder?
    private var generation = -1
    private let scaler = FrameScaler()
    /// Buffers pictures are scaled into, reused once neither the hand-over nor the display
    /// loop holds them.
    private var pool: [Frame] = []

    init(source: ShareSource) { self.source = source }

    enum Job: Sendable {
        case end
        case wait
        case decode(sequence: UInt32, data: [UInt8], generation: Int, width: Int, height: Int)
        /// The pane changed size while no picture came: the newest again at the new size.
        case rescale(width: Int, height: Int)
    }

    func run() {
        defer {
            decoder?.close()
            decoder = nil
            pool.removeAll()
        }
        let hasPicture = { [self] in decoder?.latest.map { $0.pointee.width > 0 } ?? false }
        while true {
            let canRescale = hasPicture()
            let job = source.withState { s -> Job in
                if s.ended { return .end }
                if !s.packets.isEmpty {
                    let p = s.packets.removeFirst()
                    s.busySince = MonotonicClock.now()
                    return .decode(sequence: p.sequence, data: p.data, generation: s.generation, width: s.width, height: s.height)
                }
                if canRescale, let n = s.newest, n.width != s.width || n.height != s.height { return .rescale(width: s.width, height: s.height) }
                return .wait
            }
            switch job {
            case .end: return
            case .wait: source.waitForWork(seconds: 0.25)
            case .rescale(let w, let h):
                if let f = try? draw(width: w, height: h) { hand(f, sequence: nil, bytes: 0, seconds: nil) }
            case .decode(let seq, let data, let gen, let w, let h):
                let t0 = MonotonicClock.now()
                var picture: Frame?
                do {
                    if decoder == nil || gen != generation {
                        decoder?.close()
                        decoder = try ShareDecoder(codec: codec, maxSide: source.maxSide, maxPixels: source.maxPixels)
                        generation = gen
                    }
                    if try decoder!.decode(data) { picture = try draw(width: w, height: h) }
                } catch {
                    source.fail(.damaged("\(error)"))
                    return
                }
                let seconds = MonotonicClock.now() - t0
                hand(picture, sequence: seq, bytes: data.count, seconds: picture == nil ? nil : seconds)
            }
        }
    }

    private var codec: ShareDecoder.Codec {
        switch source.codec {
        case .h264: return .h264
        case .vp8: return .vp8
        case .vp9: return .vp9
        }
    }

    /// The newest decoded picture fitted into a `width`×`height` buffer with bars.
    private func draw(width w: Int, height h: Int) throws -> Frame? {
        guard let latest = decoder?.latest, latest.pointee.width > 0, latest.pointee.height > 0 else { return nil }
        var aspect = Double(latest.pointee.width) / Double(latest.pointee.height)
        let sar = latest.pointee.sample_aspect_ratio
        if sar.num > 0, sar.den > 0 { aspect *= Double(sar.num) / Double(sar.den) }
        let target = buffer(width: w, height: h)
        let rect = Fit.rect(aspect: aspect, in: PixelRect(x: 0, y: 0, width: w, height: h))
        try scaler.draw(latest, rotation: 0, into: target, rect: rect)
        target.fillBars(around: rect, source.background)
        return target
    }

    /// Hands a picture to the display loop (if the pane is still that size), and reports the
    /// picture handled (`sequence` nil: a rescale, nothing to report).
    private func hand(_ picture: Frame?, sequence: UInt32?, bytes: Int, seconds: Double?) {
        let now = MonotonicClock.now()
        let (effects, ack) = source.withState { s -> ([ShareFlow.Effect], (UInt32, Int, Int, Int)?) in
            s.busySince = nil
            if let p = picture, p.width == s.width, p.height == s.height, !s.ended {
                s.newest = p
                s.newestTaken = false
            }
            guard let sequence else { return ([], nil) }
            let e = s.flow.handled(sequence: sequence, bytes: bytes, seconds: seconds, now: now)
            let f = s.flow
            return (e, (f.handledSequence, f.decoded, f.dropped, f.queuedBytes))
        }
        source.carry(effects)
        let r = source.reportsForLoop
        if let a = ack { r.ack(a.0, a.1, a.2, a.3) }
        if let seconds { r.decoded(seconds) }
    }

    private func buffer(width w: Int, height h: Int) -> Frame {
        pool.removeAll { $0.width != w || $0.height != h }
        for i in pool.indices where isKnownUniquelyReferenced(&pool[i]) { return pool[i] }
        let f = Frame(width: w, height: h, color: source.background)
        if pool.count < 5 { pool.append(f) }
        return f
    }
}
