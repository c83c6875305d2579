import Foundation
import LecternModel
import LecternTestSupport
import LecternVideo
import XCTest

/// A clip as a pane's moving source, driven as the display loop will drive it (`PaneDriver`:
/// a 60 Hz refresh on a hand-moved clock), decoding real clips with FFmpeg.
final class ClipSourceTests: XCTestCase {
    let clip30 = ClipSpec(width: 640, height: 480, fps: 30, seconds: 2)

    /// Every frame once, in order, each at the refresh its time says (every other one at
    /// 30 fps into 60 Hz), none dropped; the end is reported once and the decoder closed.
    func testFramesComeInOrderAtTheClipsRate() throws {
        let driver = try PaneDriver(Clips.make(clip30))
        try driver.runToEnd()
        let numbers = driver.shown.map(\.number)
        XCTAssertEqual(numbers, (0..<60).map { $0 }, "shown \(numbers)")
        for (i, s) in driver.shown.enumerated() {
            XCTAssertEqual(driver.index(s.refresh), 2 * i, "frame \(i) at the wrong refresh")
        }
        let ends = driver.ends.results
        XCTAssertEqual(ends.count, 1)
        XCTAssertEqual(ends.first?.end, .ended)
        XCTAssertEqual(ends.first?.status.presented, 60)
        XCTAssertEqual(ends.first?.status.dropped, 0)
        XCTAssertEqual(ends.first?.status.state, .stopped)
        // The last frame had its time on screen: the end comes at the refresh it runs out.
        XCTAssertGreaterThanOrEqual(driver.k, 2 * 59 + 1)
        XCTAssertLessThanOrEqual(driver.k, 2 * 59 + 3)
        // The queue never held more than its bound.
        XCTAssertLessThanOrEqual(driver.source.queued.highWater, ClipSource.queueBound)
        XCTAssertEqual(driver.source.queued.highWater, ClipSource.queueBound)
    }

    /// 25 fps into 60 Hz: each frame at the refresh nearest its time, none dropped.
    func testTwentyFiveFramesASecondLandOnTheNearestRefresh() throws {
        let driver = try PaneDriver(Clips.make(ClipSpec(width: 640, height: 480, fps: 25, seconds: 1)))
        try driver.runToEnd()
        XCTAssertEqual(driver.shown.map(\.number), (0..<25).map { $0 })
        for (i, s) in driver.shown.enumerated() {
            let due = Double(i) / 25 * 60
            XCTAssertLessThanOrEqual(abs(Double(driver.index(s.refresh)) - due), 0.5 + 1e-6, "frame \(i)")
        }
        XCTAssertEqual(driver.ends.results.first?.status.dropped, 0)
    }

    /// A display loop that misses refreshes drops the frames it missed and shows the one due
    /// now: it does not catch up by showing them late.
    func testALateDisplayLoopDropsRatherThanCatchesUp() throws {
        let driver = try PaneDriver(Clips.make(clip30))
        for _ in 0..<20 { try driver.refresh() }   // frames 0...9
        driver.skip(11)   // refreshes 20...30 missed: frames 10...15 were due meanwhile
        // Refresh 31: the newest queued (10, 11, 12: the queue's bound) is shown, the others
        // dropped; the producer then drops 13 and 14 unscaled (over already).
        try driver.refresh()
        XCTAssertEqual(driver.shown.last?.number, 12)
        try driver.refresh()   // refresh 32: 16 is due (15 was, at 30): 15 dropped
        XCTAssertEqual(driver.shown.last?.number, 16)
        XCTAssertEqual(driver.index(driver.shown.last!.refresh), 32)
        try driver.runToEnd()
        let numbers = driver.shown.compactMap(\.number)
        XCTAssertEqual(numbers, (0..<10).map { $0 } + [12] + (16..<60).map { $0 })
        for s in driver.shown.suffix(44) { XCTAssertEqual(driver.index(s.refresh), 2 * s.number!, "back on time") }
        let end = try XCTUnwrap(driver.ends.results.first)
        XCTAssertEqual(end.status.presented, 55)
        XCTAssertEqual(end.status.dropped, 5)
    }

    /// Paused: nothing new (the pane keeps its picture), however long. A seek while paused
    /// shows the frame sought to once; resume goes on from there.
    func testPauseKeepsThePictureAndASeekWhilePausedShowsTheFrameOnce() throws {
        let control = PlaybackControl()
        let driver = try PaneDriver(Clips.make(clip30), control: control)
        for _ in 0..<10 { try driver.refresh() }   // frames 0...4
        control.pause()
        for _ in 0..<120 { XCTAssertNil(try driver.refresh(settle: false), "a frame while paused") }
        try eventually("paused", timeout: 5) { control.status.state == .paused }
        XCTAssertEqual(control.status.position, 4.0 / 30, accuracy: 1e-6)
        control.seek(to: 1.0)
        try eventually("the frame sought to", timeout: 10) { driver.source.queued.now == 1 }
        let still = try XCTUnwrap(try driver.refresh(settle: false), "the frame sought to, while paused")
        XCTAssertEqual(Reader.number(still, rect: driver.rect(960, 1080)), 30)
        for _ in 0..<30 { XCTAssertNil(try driver.refresh(settle: false), "the frame sought to came twice") }
        XCTAssertEqual(control.status.state, .paused)
        control.resume()
        try eventually("playing", timeout: 5) { control.status.state == .playing }
        try driver.runToEnd()
        let numbers = driver.shown.compactMap(\.number)
        XCTAssertEqual(numbers, (0..<5).map { $0 } + (30..<60).map { $0 })
        XCTAssertEqual(driver.ends.results.first?.status.dropped, 0)
    }

    /// Looping: the clip starts again right after its last frame, on time, until stopped;
    /// stop ends it once.
    func testLoopStartsAgainOnTimeUntilStopped() throws {
        let control = PlaybackControl()
        let driver = try PaneDriver(
            Clips.make(ClipSpec(width: 640, height: 480, fps: 30, seconds: 1)), loop: true, control: control)
        for _ in 0..<(60 * 3) { try driver.refresh() }
        let numbers = driver.shown.map(\.number)
        XCTAssertEqual(numbers, Array(repeating: (0..<30).map { $0 }, count: 3).flatMap { $0 })
        for (i, s) in driver.shown.enumerated() { XCTAssertEqual(driver.index(s.refresh), 2 * i) }
        XCTAssertFalse(driver.ended)
        driver.source.stop()
        try eventually("onEnd", timeout: 10) { driver.ended }
        driver.source.stop()
        for _ in 0..<5 { try driver.refresh(settle: false) }
        XCTAssertEqual(driver.ends.results.map(\.end), [.stopped])
        XCTAssertEqual(driver.ends.results.first?.status.presented, 90)
    }

    /// Stop in the middle ends it once; a damaged clip fails once after what decodes.
    func testEndIsReportedOnceForStopAndFailure() throws {
        let driver = try PaneDriver(Clips.make(clip30))
        for _ in 0..<10 { try driver.refresh() }
        driver.source.stop()
        try eventually("onEnd", timeout: 10) { driver.ended }
        driver.source.stop()
        driver.source.control.stop()
        for _ in 0..<10 { try driver.refresh(settle: false) }
        XCTAssertEqual(driver.ends.results.map(\.end), [.stopped])
        XCTAssertEqual(driver.ends.results.first?.status.state, .stopped)

        // A truncated clip plays what it can and ends once.
        let cut = try Clips.truncated(Clips.make(ClipSpec(fps: 25, seconds: 2, faststart: true)), fraction: 0.6)
        let damaged = try PaneDriver(cut)
        try damaged.runToEnd()
        XCTAssertEqual(damaged.ends.results.count, 1)
        XCTAssertNotEqual(damaged.ends.results.first?.end, .stopped)
        let numbers = damaged.shown.compactMap(\.number)
        XCTAssertEqual(Array(numbers.prefix(20)), (0..<20).map { $0 })

        // A clip whose every picture is garbage (the index intact) fails, once.
        let spec = ClipSpec(fps: 25, seconds: 1, faststart: true)
        var data = try Data(contentsOf: URL(fileURLWithPath: Clips.make(spec)))
        let mdat = try XCTUnwrap(data.range(of: Data("mdat".utf8)))
        for i in (mdat.upperBound)..<data.count { data[i] ^= 0xFF }
        let garbage = Clips.dir + "/garbage-" + spec.name
        try data.write(to: URL(fileURLWithPath: garbage))
        let failed = try PaneDriver(garbage)
        try failed.runToEnd()
        for _ in 0..<5 { try failed.refresh(settle: false) }
        XCTAssertEqual(failed.ends.results.count, 1)
        guard case .failed(let why) = failed.ends.results.first?.end else {
            return XCTFail("a clip of garbage ended as \(String(describing: failed.ends.results.first?.end))")
        }
        print("the garbage clip failed: \(why)")
        XCTAssertTrue(failed.shown.isEmpty)
    }

    /// Every pixel outside the fitted picture is the background, exactly; after a resize the
    /// frames come at the new size, bars exact again.
    func testBarsAreExactAndResizeChangesTheFrameSize() throws {
        let bg = RGB(10, 200, 30)
        let driver = try PaneDriver(Clips.make(clip30), background: bg)
        try driver.refresh()
        let first = try XCTUnwrap(driver.last)
        XCTAssertEqual(first.width, 960)
        XCTAssertEqual(first.height, 1080)
        try checkBars(first, picture: driver.rect(960, 1080), bg)
        for _ in 0..<5 { try driver.refresh() }
        driver.source.resize(width: 800, height: 300)
        var resized: Frame?
        for _ in 0..<30 where resized == nil {
            if let f = try driver.refresh(), f.width == 800 { resized = f }
        }
        let f = try XCTUnwrap(resized, "no frame at the new size")
        XCTAssertEqual(f.height, 300)
        let rect = driver.rect(800, 300)
        XCTAssertLessThan(rect.width, 800, "pillarboxed")
        try checkBars(f, picture: rect, bg)
        XCTAssertNotNil(Reader.number(f, rect: rect))
        // Nothing of the old size after the first of the new.
        let after = driver.shown.drop { $0.width != 800 }
        XCTAssertTrue(after.allSatisfy { $0.width == 800 && $0.height == 300 })
        driver.source.stop()
        try eventually("onEnd", timeout: 10) { driver.ended }
    }

    func checkBars(_ f: Frame, picture: PixelRect, _ bg: RGB, file: StaticString = #filePath, line: UInt = #line) throws {
        var wrong = 0
        for y in 0..<f.height {
            for x in 0..<f.width where !(picture.contains(x: x, y: y)) && f.pixel(x: x, y: y) != bg { wrong += 1 }
        }
        XCTAssertEqual(wrong, 0, "pixels of the bars that are not the background", file: file, line: line)
        // The picture reaches its rectangle's edges (blue ground).
        XCTAssertTrue(Reader.isBlueish(f.pixel(x: picture.maxX - 1, y: picture.maxY - 1)), file: file, line: line)
    }

    /// However long the display loop doesn't take, the producer queues no more than the bound
    /// (memory is bounded), and frames are scaled into a few reused buffers.
    func testTheProducerNeverHoldsMoreThanTheQueueBound() throws {
        let driver = try PaneDriver(Clips.make(clip30))
        try driver.settle()
        XCTAssertEqual(driver.source.queued.now, ClipSource.queueBound)
        // It stays waiting (checked many times over a while), never queueing more.
        for _ in 0..<20 {
            try driver.settle()
            XCTAssertEqual(driver.source.queued.now, ClipSource.queueBound)
        }
        var seen = Set<ObjectIdentifier>()
        var kept: [Frame] = []
        for _ in 0..<100 {
            if let f = try driver.refresh() {
                seen.insert(ObjectIdentifier(f))
                kept = [f]   // the display loop keeps what the pane shows
            }
        }
        _ = kept
        XCTAssertLessThanOrEqual(driver.source.queued.highWater, ClipSource.queueBound)
        XCTAssertLessThanOrEqual(seen.count, ClipSource.queueBound + 3, "buffers are reused")
        driver.source.stop()
        try eventually("onEnd", timeout: 10) { driver.ended }
    }

    /// The producer's thread runs niced (`ClipSource.producerNice`): when the cores are short
    /// the display loop and the page renders go first. Read from the kernel (/proc), for that
    /// thread alone: the test's own thread stays as it was.
    func testTheProducerYieldsToTheDisplay() throws {
        let before = Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        let driver = try PaneDriver(Clips.make(clip30))
        try driver.settle()
        let clips = Fixtures.threads().filter { $0.name == "lectern.clip" }
        XCTAssertFalse(clips.isEmpty, "a producer thread named lectern.clip: \(Fixtures.threads())")
        for c in clips { XCTAssertEqual(c.nice, Int(ClipSource.producerNice), "\(c)") }
        XCTAssertEqual(Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)), before, "this thread's own nice is untouched")
        driver.source.stop()
        try eventually("onEnd", timeout: 10) { driver.ended }
    }

    /// A clip given its own threads (a pane's share, `ClipThreads`) reopens its decoder on the
    /// producer's thread, after that thread yielded: FFmpeg's frame threads start from it and
    /// inherit its name and its nice (on /proc), so they too go after the display loop.
    func testTheDecodersThreadsStartedByTheProducerYieldToo() throws {
        let driver = try PaneDriver(Clips.make(clip30), threads: ClipThreads(decoder: 3, scaler: 1))
        try driver.settle()
        let clips = Fixtures.threads().filter { $0.name == "lectern.clip" }
        XCTAssertGreaterThanOrEqual(clips.count, 1 + 3, "the producer and FFmpeg's three: \(Fixtures.threads())")
        for c in clips { XCTAssertEqual(c.nice, Int(ClipSource.producerNice), "\(c)") }
        driver.source.stop()
        try eventually("onEnd", timeout: 10) { driver.ended }
    }
}
