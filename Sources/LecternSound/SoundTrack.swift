import Foundation
import LecternModel
import LecternSystem
import LecternVideo

/// A clip's sound playing on an ALSA device, on a thread of its own: decodes and
/// resamples (`AudioDecoder`), applies the room's volume (`SoundLevel`), writes to the
/// device (`ALSASink`) in pieces of about 20 ms, and after each piece reports to the
/// `AudioClock` the picture follows. Driven by the playback loop through `ClipSound`.
/// A device that fails mid-clip ends the sound (the picture goes on with its own time);
/// `failure` says why, for the log.
///
/// Sendable unchecked, and why that holds: every `var` is read and written only with
/// `cond` held (its waits and broadcasts are what the playback loop and the sound thread
/// say to each other, which a `Mutex` can't do); `decoder` and `sink`, which are not
/// thread-safe, are used only by the sound thread (`run`), whose end `stop` waits for.
public final class SoundTrack: ClipSound, @unchecked Sendable {
    private let decoder: AudioDecoder
    private let sink: ALSASink
    private let level: SoundLevel
    private let cond = NSCondition()
    private var clock = AudioClock()
    private var startFrom: Double?
    private var active = false
    private var paused = false
    private var dropOwed = false
    private var stopped = false
    private var ended = false
    private var _failure: String?
    private let finished = DispatchSemaphore(value: 0)
    /// Frames per piece written: 20 ms.
    static let piece = AudioDecoder.sampleRate / 50

    public init(decoder: AudioDecoder, sink: ALSASink, level: SoundLevel) {
        self.decoder = decoder
        self.sink = sink
        self.level = level
        let t = Thread { [self] in run() }
        t.name = "lectern.sound"
        t.qualityOfService = .userInteractive
        t.start()
    }

    public var failure: String? { cond.withLock { _failure } }

    public func play(from seconds: Double) {
        cond.withLock {
            startFrom = seconds
            paused = false
            ended = false
            clock.resume()
            cond.broadcast()
        }
    }

    public func pause() {
        cond.withLock {
            guard !paused else { return }
            let now = MonotonicClock.now()
            clock.pause(at: now)
            paused = true
            dropOwed = true
            cond.broadcast()
        }
    }

    public func resume() {
        cond.withLock {
            guard paused else { return }
            paused = false
            // The device's queue was dropped: go on from what was heard.
            if active || startFrom == nil, let at = clock.position(at: MonotonicClock.now()) { startFrom = at }
            clock.resume()
            cond.broadcast()
        }
    }

    public func stop() {
        let first: Bool = cond.withLock {
            defer { stopped = true; cond.broadcast() }
            return !stopped
        }
        if first { finished.wait() }
    }

    public func origin(at now: Double) -> Double? {
        cond.withLock { ended || paused ? nil : clock.origin(at: now) }
    }

    private func run() {
        var pending: ArraySlice<Int16> = []
        var pendingTime = 0.0
        defer {
            sink.drop()
            sink.close()
            decoder.close()
            finished.signal()
        }
        while true {
            cond.lock()
            if dropOwed {
                dropOwed = false
                cond.unlock()
                sink.drop()
                cond.lock()
            }
            while !stopped && (paused || (!active && startFrom == nil)) { cond.wait() }
            if stopped { cond.unlock(); return }
            let from = startFrom
            startFrom = nil
            cond.unlock()

            if let from {
                sink.drop()
                decoder.seek(to: from)
                pending = []
                cond.withLock { active = true }
            }
            if pending.isEmpty {
                guard let chunk = decoder.next() else {
                    cond.withLock {
                        ended = true; active = false
                    }
                    continue
                }
                pending = chunk.samples[...]
                pendingTime = chunk.time
            }
            let frames = min(Self.piece, pending.count / AudioDecoder.channels)
            let n = frames * AudioDecoder.channels
            let gain = level.gain
            var piece = pending.prefix(n)
            if gain < 0.9999 {
                piece = ArraySlice(piece.map { Int16(clamping: Int((Double($0) * gain).rounded())) })
            }
            do { try sink.write(piece) } catch {
                cond.withLock {
                    _failure = "\(error)"; ended = true; active = false
                }
                pending = []
                continue
            }
            pending = pending.dropFirst(n)
            pendingTime += Double(frames) / Double(AudioDecoder.sampleRate)
            let queued = sink.queued
            cond.withLock {
                // A pause or a new start meanwhile: this report is about sound that was dropped.
                if !paused && startFrom == nil { clock.report(end: pendingTime, queued: queued, at: MonotonicClock.now()) }
            }
        }
    }
}
