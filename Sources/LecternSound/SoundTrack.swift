import Foundation
import LecternModel
import LecternSystem
import LecternVideo
import Synchronization

/// A clip's sound playing on an ALSA device, on a thread of its own: decodes and
/// resamples (`AudioDecoder`), applies the room's volume (`SoundLevel`), writes to the
/// device (`ALSASink`) in pieces of about 20 ms, and after each piece reports to the
/// `AudioClock` the picture follows. Driven by the playback loop through `ClipSound`.
/// A device that fails mid-clip ends the sound (the picture goes on with its own time);
/// `failure` says why, for the log.
///
/// The decoder and the device, which are not thread-safe, are handed to the sound thread
/// at the start and are that thread's alone; the rest of the state is behind `state` (a
/// `Mutex`), and `bell` rings after each change the sound thread waits for.
public final class SoundTrack: ClipSound, Sendable {
    private struct State {
        var clock = AudioClock()
        var startFrom: Double?
        var active = false
        var paused = false
        var dropOwed = false
        var stopped = false
        var ended = false
        var failure: String?
    }
    private let level: SoundLevel
    private let state = Mutex(State())
    private let bell = ChangeBell()
    private let finished = DispatchSemaphore(value: 0)
    /// Frames per piece written: 20 ms.
    static let piece = AudioDecoder.sampleRate / 50

    public init(decoder: sending AudioDecoder, sink: sending ALSASink, level: SoundLevel) {
        self.level = level
        let parts = Handoff((decoder, sink))
        let t = Thread { [self] in
            ThreadName.set("lectern.sound")   // the name the kernel shows (/proc, top -H)
            if let (decoder, sink) = parts.take() { run(decoder, sink) }
        }
        t.name = "lectern.sound"
        t.qualityOfService = .userInteractive
        t.start()
    }

    public var failure: String? { state.withLock { $0.failure } }

    public func play(from seconds: Double) {
        state.withLock { s in
            s.startFrom = seconds
            s.paused = false
            s.ended = false
            s.clock.resume()
        }
        bell.ring()
    }

    public func pause() {
        let changed = state.withLock { s -> Bool in
            guard !s.paused else { return false }
            let now = MonotonicClock.now()
            s.clock.pause(at: now)
            s.paused = true
            s.dropOwed = true
            return true
        }
        if changed { bell.ring() }
    }

    public func resume() {
        let changed = state.withLock { s -> Bool in
            guard s.paused else { return false }
            s.paused = false
            // The device's queue was dropped: go on from what was heard.
            if s.active || s.startFrom == nil, let at = s.clock.position(at: MonotonicClock.now()) { s.startFrom = at }
            s.clock.resume()
            return true
        }
        if changed { bell.ring() }
    }

    public func stop() {
        let first = state.withLock { s -> Bool in
            defer { s.stopped = true }
            return !s.stopped
        }
        bell.ring()
        if first { finished.wait() }
    }

    public func origin(at now: Double) -> Double? {
        state.withLock { s in s.ended || s.paused ? nil : s.clock.origin(at: now) }
    }

    private func run(_ decoder: AudioDecoder, _ sink: ALSASink) {
        var pending: ArraySlice<Int16> = []
        var pendingTime = 0.0
        defer {
            sink.drop()
            sink.close()
            decoder.close()
            finished.signal()
        }
        while true {
            let dropOwed = state.withLock { s in
                defer { s.dropOwed = false }
                return s.dropOwed
            }
            if dropOwed { sink.drop() }
            // Wait while paused, or before the first start; note the bell before each look.
            var start: (stopped: Bool, from: Double?)
            while true {
                let seen = bell.generation
                let next = state.withLock { s -> (stopped: Bool, from: Double?)? in
                    if s.stopped { return (true, nil) }
                    if s.paused || (!s.active && s.startFrom == nil) { return nil }
                    defer { s.startFrom = nil }
                    return (false, s.startFrom)
                }
                if let next {
                    start = next
                    break
                }
                bell.wait(after: seen)
            }
            if start.stopped { return }

            if let from = start.from {
                sink.drop()
                decoder.seek(to: from)
                pending = []
                state.withLock { $0.active = true }
            }
            if pending.isEmpty {
                guard let chunk = decoder.next() else {
                    state.withLock { s in
                        s.ended = true; s.active = false
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
                state.withLock { s in
                    s.failure = "\(error)"; s.ended = true; s.active = false
                }
                pending = []
                continue
            }
            pending = pending.dropFirst(n)
            pendingTime += Double(frames) / Double(AudioDecoder.sampleRate)
            let queued = sink.queued
            state.withLock { s in
                // A pause or a new start meanwhile: this report is about sound that was dropped.
                if !s.paused && s.startFrom == nil { s.clock.report(end: pendingTime, queued: queued, at: MonotonicClock.now()) }
            }
        }
    }
}
