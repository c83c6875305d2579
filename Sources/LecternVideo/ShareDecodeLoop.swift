import Foundation
import LecternModel
import LecternSystem

/// The decode loop of a `ShareSource`, on a thread of its own: takes the pictures in the
/// order they arrived, has its `ShareDecoding` decode each and draw the newest into a buffer
/// of the pane's size (the picture fitted aspect-preserving, exact bars) and hands it over;
/// reports each picture handled (the ack and `ShareFlow`'s advice). A new route makes a new
/// decoder. Only this thread uses the decoding.
final class ShareDecodeLoop {
    let source: ShareSource

    init(source: ShareSource) { self.source = source }

    enum Job: Sendable {
        case end
        case wait
        case decode(sequence: UInt32, data: [UInt8], capture: Double, generation: Int, width: Int, height: Int)
        /// A piece of sound: decoded first (small, and late sound is worse than a late picture).
        case audio(data: [UInt8], channels: Int, capture: Double)
        /// The pane changed size while no picture came: the newest again at the new size.
        case rescale(width: Int, height: Int)
    }

    func run() {
        let decoding: ShareDecoding
        do { decoding = try source.makeDecoding() } catch {
            source.fail(error as? ShareSource.Failure ?? .crashed("the decoder can't be started: \(error)"))
            return
        }
        source.withState { $0.decoderProcessID = decoding.processID }
        defer {
            decoding.close()
            source.withState { $0.decoderProcessID = nil }
        }
        var hasPicture = false
        while true {
            let canRescale = hasPicture
            let job = source.withState { s -> Job in
                if s.ended { return .end }
                if !s.audio.isEmpty {
                    let a = s.audio.removeFirst()
                    s.busySince = MonotonicClock.now()
                    return .audio(data: a.data, channels: a.channels, capture: a.capture)
                }
                if !s.packets.isEmpty {
                    let p = s.packets.removeFirst()
                    s.busySince = MonotonicClock.now()
                    return .decode(sequence: p.sequence, data: p.data, capture: p.capture, generation: s.generation, width: s.width, height: s.height)
                }
                if canRescale, let n = s.newest, n.width != s.width || n.height != s.height { return .rescale(width: s.width, height: s.height) }
                return .wait
            }
            switch job {
            case .end: return
            case .wait: source.waitForWork(seconds: 0.25)
            case .audio(let data, let channels, let capture):
                let samples: [Int16]
                do { samples = try decoding.decodeAudio(data, channels: channels) } catch {
                    source.fail(error as? ShareSource.Failure ?? .damaged("\(error)"))
                    return
                }
                source.withState { $0.busySince = nil }
                if !samples.isEmpty { source.play(samples, capture: capture, channels: channels) }
            case .rescale(let w, let h):
                do {
                    if let f = try decoding.redraw(width: w, height: h) { hand(f, sequence: nil, bytes: 0, seconds: nil, capture: nil) }
                } catch {
                    source.fail(error as? ShareSource.Failure ?? .damaged("\(error)"))
                    return
                }
            case .decode(let seq, let data, let capture, let gen, let w, let h):
                let t0 = MonotonicClock.now()
                let picture: Frame?
                do {
                    picture = try decoding.decode(data, codec: codec, generation: gen, width: w, height: h)
                } catch {
                    source.fail(error as? ShareSource.Failure ?? .damaged("\(error)"))
                    return
                }
                if picture != nil { hasPicture = true }
                let seconds = MonotonicClock.now() - t0
                hand(picture, sequence: seq, bytes: data.count, seconds: picture == nil ? nil : seconds, capture: capture)
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

    /// Hands a picture to the display loop (if the pane is still that size), and reports the
    /// picture handled (`sequence` nil: a rescale, nothing to report).
    private func hand(_ picture: Frame?, sequence: UInt32?, bytes: Int, seconds: Double?, capture: Double?) {
        let now = MonotonicClock.now()
        let (effects, ack) = source.withState { s -> ([ShareFlow.Effect], (UInt32, Int, Int, Int)?) in
            s.busySince = nil
            if let p = picture, p.width == s.width, p.height == s.height, !s.ended {
                s.newest = p
                s.newestTaken = false
                s.pictures += 1
                // With sound, the picture waits for it (`frame(forRefreshAt:)`).
                if s.sound != nil, let capture {
                    s.synced.append((p, capture))
                    if s.synced.count > ShareSource.syncQueue { s.synced.removeFirst(s.synced.count - ShareSource.syncQueue) }
                }
            }
            // Ended meanwhile: nobody to tell (the connection, even the room's loop, may be gone).
            guard let sequence, !s.ended else { return ([], nil) }
            let e = s.flow.handled(sequence: sequence, bytes: bytes, seconds: seconds, now: now)
            let f = s.flow
            return (e, (f.handledSequence, f.decoded, f.dropped, f.queuedBytes))
        }
        source.carry(effects)
        let r = source.reportsForLoop
        if let a = ack { r.ack(a.0, a.1, a.2, a.3) }
        if let seconds { r.decoded(seconds) }
    }
}
