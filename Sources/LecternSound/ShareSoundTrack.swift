import Foundation
import LecternModel
import LecternSystem
import LecternVideo
import Synchronization

/// A live share's sound on the ALSA output clips' sound plays on (docs/protocol.md §29.9),
/// at the room's volume, on a thread of its own: decoded pieces are queued as they come,
/// played from when 60 ms are there (again after the queue ran dry), written in pieces of
/// 20 ms; more than `maxQueued` waiting is never caught up with — the oldest goes. After
/// each piece it knows when the sound captured at a moment is heard (`heard(capture:)`:
/// the capture time plus an offset, smoothed), which the share's pictures are held to.
///
/// The device (`ALSASink`, not thread-safe) is handed to the sound thread at the start and
/// is that thread's alone; the rest of the state is behind `state` (a `Mutex`).
public final class ShareSoundTrack: ShareSoundSink, Sendable {
    struct State {
        var queue: [(samples: ArraySlice<Int16>, capture: Double)] = []
        var queuedFrames = 0
        var playing = false
        var stopped = false
        /// heard time − capture time (seconds), once sound has been written.
        var offset: Double?
        var dropped = 0
        var failure: String?
    }

    /// Sound waited for before playing starts (a jitter buffer), and the most kept.
    public static let startAfter = 0.06
    public static let maxQueued = 0.3
    static let rate = Double(AudioDecoder.sampleRate)

    private let level: SoundLevel
    private let state = Mutex(State())
    private let bell = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    public init(sink: sending ALSASink, level: SoundLevel) {
        self.level = level
        let device = Handoff(sink)
        let t = Thread { [self] in
            ThreadName.set("lectern.shsound")   // the name the kernel shows (/proc, top -H)
            if let sink = device.take() { run(sink) }
        }
        t.name = "lectern.shsound"
        t.qualityOfService = .userInteractive
        t.start()
    }

    public func push(_ samples: [Int16], capture: Double) {
        state.withLock { s in
            guard !s.stopped else { return }
            s.queue.append((samples[...], capture))
            s.queuedFrames += samples.count / AudioDecoder.channels
            while Double(s.queuedFrames) / Self.rate > Self.maxQueued, s.queue.count > 1 {
                s.queuedFrames -= s.queue.removeFirst().samples.count / AudioDecoder.channels
                s.dropped += 1
            }
        }
        bell.signal()
    }

    public func heard(capture: Double) -> Double? { state.withLock { $0.offset.map { capture + $0 } } }

    public func stop() {
        let first = state.withLock { s -> Bool in
            defer { s.stopped = true }
            return !s.stopped
        }
        guard first else { return }
        bell.signal()
        finished.wait()
    }

    /// Pieces dropped because more than `maxQueued` waited; why the device failed, if it did.
    public var dropped: Int { state.withLock { $0.dropped } }
    public var failure: String? { state.withLock { $0.failure } }

    private func run(_ sink: ALSASink) {
        defer {
            sink.drop()
            sink.close()
            finished.signal()
        }
        let piece = AudioDecoder.sampleRate / 50
        while true {
            let next = state.withLock { s -> (samples: ArraySlice<Int16>, capture: Double)?? in
                if s.stopped { return .some(nil) }
                if !s.playing {
                    guard Double(s.queuedFrames) / Self.rate >= Self.startAfter else { return nil }
                    s.playing = true
                }
                guard !s.queue.isEmpty else {
                    s.playing = false   // ran dry: wait for the jitter buffer again
                    return nil
                }
                let head = s.queue[0]
                let n = min(piece * AudioDecoder.channels, head.samples.count)
                let out = head.samples.prefix(n)
                let rest = head.samples.dropFirst(n)
                if rest.isEmpty { s.queue.removeFirst() } else { s.queue[0] = (rest, head.capture + Double(n / AudioDecoder.channels) / Self.rate) }
                s.queuedFrames -= n / AudioDecoder.channels
                return .some((out, head.capture))
            }
            guard let n = next else {
                _ = bell.wait(timeout: .now() + 0.02)
                continue
            }
            guard let (samples, capture) = n else { return }
            let gain = level.gain
            let piece = gain < 0.9999 ? ArraySlice(samples.map { Int16(clamping: Int((Double($0) * gain).rounded())) }) : samples
            do { try sink.write(piece) } catch {
                state.withLock {
                    $0.failure = "\(error)"
                    $0.stopped = true
                }
                return
            }
            // The end of what was written is heard once what is queued in the device has played.
            let end = capture + Double(samples.count / AudioDecoder.channels) / Self.rate
            let offset = MonotonicClock.now() + sink.queued - end
            state.withLock { s in s.offset = s.offset.map { $0 * 0.9 + offset * 0.1 } ?? offset }
        }
    }
}
