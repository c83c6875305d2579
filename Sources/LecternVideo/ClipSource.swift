import Dispatch
import Foundation
import Glibc
import LecternModel
import LecternSystem
import Synchronization

/// A clip as a moving source of a pane (issue 26): a producer thread of its own decodes
/// ahead into a small queue of frames already scaled to the pane (the picture fitted
/// aspect-preserving, exact bars in `background`), and the display loop takes the frame due
/// at each refresh without ever waiting (`frame(forRefreshAt:refreshPeriod:)`). It never
/// presents and never holds the output.
///
/// It decodes and scales on its pane's share of the cores (`threads`, `ClipThreads`).
/// Pause, resume, seek, stop and loop go through `control`
/// (status, `onChange` about twice a second, a seek while paused shows the frame sought to
/// once). With `sound`, the sound's clock sets the pace (`ClipPacing.follow`); it is started
/// with the first frame taken, and paused, sought and stopped with the picture. At the
/// clip's end (not looping), a stop or a failure, the producer stops the sound, closes the
/// decoder and calls `onEnd` once, with the final status, on its own thread.
public final class ClipSource: PaneVideoSource {
    /// Frames decoded ahead, at most.
    public static let queueBound = 3
    /// How long the producer sleeps, at most, before it looks at the control again while it
    /// waits for room in the queue or for the clip's last frame to go by.
    static let commandLatency = 0.020

    public let control: PlaybackControl
    private let shared: Mutex<ClipHandOver>
    /// The producer's own state (decoder, sound, buffers): only its thread takes this lock.
    private let producer: Mutex<ClipProducer?>
    private let wake = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    /// The sound handed over and not yet taken by the producer (`replaceSound`), and whether
    /// the producer has ended (nothing handed over after that is taken).
    private let soundSwap = Mutex<(next: (any ClipSound & Sendable)??, ended: Bool)>((nil, false))
    /// The clip's picture as stored (its aspect and rotation): where it sits in a frame.
    private let shape: SourceShape

    public init(
        decoder: ClipDecoder, loop: Bool, control: PlaybackControl, sound: sending ClipSound?, background: RGB,
        width: Int, height: Int, threads: ClipThreads = .alone, onEnd: @escaping @Sendable (PlaybackResult) -> Void
    ) {
        self.control = control
        shape = decoder.info.shape
        shared = Mutex(ClipHandOver(width: max(1, width), height: max(1, height)))
        producer = Mutex(
            ClipProducer(
                decoder: decoder, loop: loop, control: control, sound: sound, background: background, threads: threads, onEnd: onEnd))
    }

    /// Starts the producer thread (once); the first frame is ready soon after. The thread keeps
    /// the source alive until it ends: a looping clip must be stopped. A source never started
    /// never calls `onEnd` (its decoder closes when it goes).
    public func start() {
        guard started.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let thread = Thread { [self] in
            // Named from inside, through the kernel: tools and tests find the producer in /proc by it.
            ThreadName.set("lectern.clip")
            Self.yieldToTheDisplay()
            producer.withLock { p in
                p?.run(self)
                p = nil
            }
        }
        thread.name = "lectern.clip"
        thread.start()
    }

    /// The producer's thread (and the scaler's slice threads it starts) runs at this nice
    /// value, as do FFmpeg's decoding threads when the clip is opened on a thread that
    /// yielded first (the service's clip opener): when the cores are short, the display loop
    /// and the page renders (nice 0) go first, and a clip that can't keep up drops frames
    /// (its pacing) rather than a page turn beside it waiting. Raising one's own nice needs
    /// no privilege; threads started after it inherit it.
    public static let producerNice: Int32 = 5

    /// The calling thread (one of the clip's own) yields to the display: `producerNice`.
    public static func yieldToTheDisplay() {
        // Who 0: the calling thread (Linux keeps a nice value per thread).
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, producerNice)
    }

    /// The same as `control.stop()`: the producer ends and `onEnd` is called once.
    public func stop() {
        control.stop()
        wake.signal()
    }

    /// Gives the clip the wall's sound output (`track`, opened on the device) or takes it
    /// away (nil: the clip plays muted on, paced by its own time). The caller has stopped
    /// the track it replaces (so the device is free); the producer picks the new one up at
    /// once and starts it where the picture is (at the resume, if paused). False: the clip
    /// has ended, the track was not taken (the caller stops it).
    @discardableResult
    public func replaceSound(_ track: (any ClipSound & Sendable)?) -> Bool {
        let taken = soundSwap.withLock { s -> Bool in
            guard !s.ended else { return false }
            s.next = .some(track)
            return true
        }
        wake.signal()
        return taken
    }

    func takeSoundChange() -> (any ClipSound & Sendable)?? {
        soundSwap.withLock { s -> (any ClipSound & Sendable)?? in
            defer { s.next = nil }
            return s.next
        }
    }

    /// The producer ended: a track handed over and not taken is returned (to be stopped).
    func soundEnded() -> (any ClipSound & Sendable)? {
        soundSwap.withLock { s -> (any ClipSound & Sendable)? in
            s.ended = true
            defer { s.next = nil }
            return s.next ?? nil
        }
    }

    // MARK: PaneVideoSource (the display loop's side)

    public func frame(forRefreshAt refresh: Double, refreshPeriod: Double) -> Frame? {
        let cmd = control.pending()
        // Paused (a seek asked meanwhile too: what is queued is from before it).
        let paused = cmd.pause
        let (frame, wakeUp) = shared.withLock { $0.take(refresh: refresh, period: refreshPeriod, paused: paused) }
        if wakeUp { wake.signal() }
        return frame
    }

    public func presented(at time: Double) {
        shared.withLock { $0.pacing.presented(at: time) }
    }

    /// The producer draws the picture at this rect of each buffer, whose bars were made
    /// once, with the buffer (`ClipProducer.queue`).
    public func pictureRect(width: Int, height: Int) -> PixelRect? { Fit.rect(for: shape, width: width, height: height) }

    public func resize(width: Int, height: Int) {
        shared.withLock {
            guard $0.width != width || $0.height != height else { return }
            $0.width = max(1, width)
            $0.height = max(1, height)
            // Frames of the old size are not shown.
            $0.queue.removeAll()
        }
        wake.signal()
    }

    // MARK: for tests and benches

    /// Frames queued now, and the most ever queued at once (never above `queueBound`).
    public var queued: (now: Int, highWater: Int) { shared.withLock { ($0.queue.count, $0.highWater) } }

    /// True while the producer has nothing to do until the display loop takes a frame (the
    /// queue is full, or the clip's last frame is queued).
    public var isWaitingForTheDisplay: Bool { shared.withLock { $0.producerWaiting } }

    // MARK: the producer's side

    func withShared<R: Sendable>(_ body: (inout ClipHandOver) -> R) -> R {
        shared.withLock { body(&$0) }
    }

    /// When `condition` holds (checked under the hand-over lock): waits until the display loop
    /// takes a frame, something is asked, or `commandLatency` passes, and says true.
    func waitForTake(if condition: (ClipHandOver) -> Bool) -> Bool {
        let wait = shared.withLock {
            guard condition($0) else { return false }
            $0.producerWaiting = true
            return true
        }
        if wait {
            _ = wake.wait(timeout: .now() + Self.commandLatency)
            shared.withLock { $0.producerWaiting = false }
        }
        return wait
    }
}
