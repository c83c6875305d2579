import CALSA
import Foundation
import LecternModel
import LecternSystem
import LecternVideo

/// An ALSA playback device opened for clips' sound: S16 stereo 48 kHz interleaved (ALSA's
/// plug layer converts for cards that want otherwise), about `latency` seconds of buffer.
/// The only code that touches ALSA's types.
///
/// `write` blocks while the device's buffer is full, so the writer runs at the device's
/// pace. A device that never blocks (the `null` and `file` plugins a test or a headless
/// box uses) is paced here instead: never more than `latency` ahead of the time since the
/// first write, so the sound still runs in real time and the clock means something.
public final class ALSASink {
    public let name: String
    public let latency: Double
    private var pcm: OpaquePointer?
    /// The first write's time, on the writing thread (the one that owns this sink).
    private var firstWrite: Double?
    /// The same, published for other threads: a bench or test measuring sync reads it while
    /// the sink plays on its own thread, and keeps this (Sendable) instead of the sink.
    public let start = SoundStart()
    /// Monotonic time of the first write since the device was opened or last dropped: with a
    /// device that doesn't block, when that sample was played (tests measure sync from it).
    public var startedAt: Double? { start.time }
    private var written = 0
    private let rate = Double(AudioDecoder.sampleRate)

    public struct OpenError: Error, CustomStringConvertible { public let description: String }

    public init(name: String, latency: Double = 0.1) throws {
        self.name = name
        self.latency = latency
        var p: OpaquePointer?
        var r = snd_pcm_open(&p, name, SND_PCM_STREAM_PLAYBACK, 0)
        guard r >= 0, let pcm = p else { throw OpenError(description: "can't open \(name): \(Self.text(r))") }
        r = snd_pcm_set_params(
            pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, UInt32(AudioDecoder.channels),
            UInt32(AudioDecoder.sampleRate), 1, UInt32(latency * 1_000_000))
        guard r >= 0 else {
            snd_pcm_close(pcm)
            throw OpenError(description: "\(name) refuses 48 kHz stereo: \(Self.text(r))")
        }
        self.pcm = pcm
    }

    deinit { close() }

    public func close() {
        if let p = pcm { snd_pcm_close(p) }
        pcm = nil
    }

    static func text(_ r: Int32) -> String { String(cString: snd_strerror(r)) }

    /// Writes all of `samples` (interleaved frames), recovering from an underrun.
    public func write(_ samples: ArraySlice<Int16>) throws {
        guard let pcm else { return }
        let frames = samples.count / AudioDecoder.channels
        if firstWrite == nil {
            firstWrite = MonotonicClock.now()
            start.set(firstWrite)
        }
        // A device that doesn't block: keep to real time.
        let ahead = Double(written) / rate - (MonotonicClock.now() - firstWrite!)
        if ahead > latency { MonotonicClock.sleep(until: MonotonicClock.now() + ahead - latency) }
        var done = 0
        try samples.withUnsafeBufferPointer { buf in
            while done < frames {
                let n = snd_pcm_writei(pcm, buf.baseAddress! + done * AudioDecoder.channels, snd_pcm_uframes_t(frames - done))
                if n < 0 {
                    let r = snd_pcm_recover(pcm, Int32(n), 1)
                    if r < 0 { throw OpenError(description: "\(name): \(Self.text(r))") }
                    continue
                }
                done += Int(n)
            }
        }
        written += frames
    }

    /// Seconds of sound written but not heard yet.
    public var queued: Double {
        guard let pcm else { return 0 }
        var d: snd_pcm_sframes_t = 0
        let device = snd_pcm_delay(pcm, &d) >= 0 ? Double(max(0, d)) / rate : 0
        let paced = firstWrite.map { Double(written) / rate - (MonotonicClock.now() - $0) } ?? 0
        return max(device, paced, 0)
    }

    /// Drops what is queued (a pause or a seek: silence at once) and gets ready to play again.
    public func drop() {
        guard let pcm else { return }
        snd_pcm_drop(pcm)
        snd_pcm_prepare(pcm)
        firstWrite = nil
        start.set(nil)
        written = 0
    }
}
