import Foundation
import LecternModel
import LecternSystem
import LecternTestSupport
import LecternVideo
import XCTest

/// Plays the display loop's role for one `ClipSource`: a 60 Hz refresh on a hand-moved
/// clock (refresh k is at `t0 + k / 60`), taking the frame due at each refresh and saying it
/// was presented then, or on the real clock (`refreshOnTheClock`, `t0` a monotonic time).
/// Records what each taken frame showed.
final class PaneDriver {
    let source: ClipSource
    let period = 1.0 / 60
    let t0: Double
    private(set) var k = 0
    /// Each frame taken: its refresh, the number it shows, its size.
    private(set) var shown: [(refresh: Double, number: Int?, width: Int, height: Int)] = []
    private(set) var last: Frame?
    let ends = Ends()
    let rect: (Int, Int) -> PixelRect

    /// `onEnd` calls, from the producer's thread.
    final class Ends: @unchecked Sendable {
        private let lock = NSLock()
        private var _results: [PlaybackResult] = []
        func add(_ r: PlaybackResult) { lock.withLock { _results.append(r) } }
        var results: [PlaybackResult] { lock.withLock { _results } }
    }

    init(
        _ path: String, width: Int = 960, height: Int = 1080, background: RGB = .black, loop: Bool = false,
        control: PlaybackControl = PlaybackControl(), sound: sending ClipSound? = nil, t0: Double = 1000,
        threads: ClipThreads = .alone
    ) throws {
        let d = try ClipDecoder(path: path)
        let ends = self.ends
        source = ClipSource(
            decoder: d, loop: loop, control: control, sound: sound, background: background, width: width,
            height: height, threads: threads, onEnd: { ends.add($0) })
        self.t0 = t0
        let shape = d.info.shape
        rotation = d.info.rotation
        rect = { Fit.rect(for: shape, width: $0, height: $1) }
        source.start()
    }

    /// The clip's rotation (the picture is turned by it in the frames).
    let rotation: Int

    var now: Double { t0 + Double(k) * period }
    var ended: Bool { !ends.results.isEmpty }

    /// Waits until the producer has done what it can before the next refresh (the queue is
    /// full or the clip's end is queued), so the frame due is there.
    func settle() throws {
        try eventually("the producer to fill its queue", timeout: 20, interval: 0.001) {
            source.isWaitingForTheDisplay || ended
        }
    }

    /// One refresh; `settle`: wait for the producer first (the exact tests).
    @discardableResult
    func refresh(settle: Bool = true) throws -> Frame? {
        if settle { try self.settle() }
        let t = now
        let f = source.frame(forRefreshAt: t, refreshPeriod: period)
        if let f {
            source.presented(at: t)
            shown.append((t, Reader.number(f, rect: rect(f.width, f.height), rotation: rotation), f.width, f.height))
            last = f
        }
        k += 1
        return f
    }

    /// One refresh on the real clock: waits until its time comes, then takes (never waiting
    /// for the producer, as the display loop doesn't). `t0` must be a monotonic time.
    @discardableResult
    func refreshOnTheClock() throws -> Frame? {
        MonotonicClock.sleep(until: now)
        return try refresh(settle: false)
    }

    /// `n` refreshes are missed (the loop was late): the clock moves on without a take.
    func skip(_ n: Int) { k += n }

    /// Refreshes until the source ends (or `max` refreshes).
    func runToEnd(max: Int = 2000) throws {
        var n = 0
        while !ended && n < max {
            try refresh()
            n += 1
        }
        try eventually("onEnd", timeout: 10) { ended }
    }

    /// The refresh index of a refresh time.
    func index(_ t: Double) -> Int { Int(((t - t0) / period).rounded()) }
}

/// A `PaneDriver` taking frames on the real clock from a thread of its own (the display
/// loop's role) until the source ends or `stop()`, while the test waits on something else
/// (what the sound device was given, say).
final class LiveDriver: @unchecked Sendable {
    private let lock = NSLock()
    private let driver: PaneDriver
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    init(_ driver: PaneDriver) {
        self.driver = driver
        Thread.detachNewThread { [self] in
            // Through `self`, whose conformance says why its thread and the test may share it.
            while lock.withLock({ !stopped && !self.driver.ended }) {
                MonotonicClock.sleep(until: lock.withLock { self.driver.now })
                lock.withLock { _ = try? self.driver.refresh(settle: false) }
            }
            done.signal()
        }
    }

    /// Reads the driver between two takes.
    func read<R>(_ body: (PaneDriver) -> R) -> R { lock.withLock { body(driver) } }

    /// Stops taking frames and waits for the thread to end.
    func stop() {
        lock.withLock { stopped = true }
        done.wait()
    }
}
