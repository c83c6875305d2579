import Foundation
import LecternModel
import LecternSystem
import LecternTestSupport
import LecternVideo
import XCTest

/// A clip over the whole wall (1920×1080), as the display loop plays it: the right frame at
/// the right refresh, bars exact, damaged files, memory. The loop's part is `PaneDriver`'s, on
/// a hand-moved 60 Hz clock (exact) or on the real one. (Pause, seek, stop and loop:
/// ClipSourceControlTests and ClipSourceTests.)
final class ClipSourcePlayTests: XCTestCase {
    let wall = (width: 1920, height: 1080)

    func driver(_ path: String, background: RGB = .black, t0: Double = 1000) throws -> PaneDriver {
        try PaneDriver(path, width: wall.width, height: wall.height, background: background, t0: t0)
    }

    // MARK: timing

    /// On the hand-moved clock: exactly every frame, each at the refresh nearest its time.
    func checkCadence(_ spec: ClipSpec, file: StaticString = #filePath, line: UInt = #line) throws {
        let d = try driver(Clips.make(spec))
        try d.runToEnd()
        let end = try XCTUnwrap(d.ends.results.first, file: file, line: line)
        XCTAssertEqual(end.end, .ended, file: file, line: line)
        XCTAssertEqual(end.status.dropped, 0, file: file, line: line)
        XCTAssertEqual(d.shown.map(\.number), Array(0..<spec.frameCount), file: file, line: line)
        for (n, s) in d.shown.enumerated() {
            let due = Double(n) / Double(spec.fps) * 60
            XCTAssertLessThanOrEqual(abs(Double(d.index(s.refresh)) - due), 0.5 + 1e-6, "\(spec.name): frame \(n)", file: file, line: line)
        }
    }

    func testCadence25fps() throws { try checkCadence(ClipSpec(width: 640, height: 480, fps: 25, seconds: 1.5, container: "h264")) }
    func testCadence30fps() throws { try checkCadence(ClipSpec(width: 640, height: 480, fps: 30, seconds: 1.5)) }
    func testCadence60fps() throws {
        try checkCadence(ClipSpec(width: 640, height: 480, fps: 60, seconds: 1, profile: "main", bframes: 2, container: "mkv"))
    }

    /// On the real clock at 60 Hz: every frame in order, each on the refresh its timestamp
    /// says. Not a timing benchmark (`make bench` measures drops at 1080p30, `clips2` two of
    /// them): this checks that playback keeps to the real clock on a shared machine that may
    /// run three times more work than it has cores, so the pane is a split wall's (960×540:
    /// a debug build's scaler and bars at 1080p cannot keep 60 fps there). Never early; drops
    /// and stalls (a frame 4 refreshes late or more) are bounded loosely; the typical frame
    /// is on its refresh (no drift).
    func checkRealTime(_ spec: ClipSpec, file: StaticString = #filePath, line: UInt = #line) throws {
        let d = try PaneDriver(Clips.make(spec), width: 960, height: 540, t0: MonotonicClock.now() + 0.1)
        while !d.ended && d.k < 60 * 30 { try d.refreshOnTheClock() }
        try eventually("onEnd", timeout: 10) { d.ended }
        let end = try XCTUnwrap(d.ends.results.first, file: file, line: line)
        XCTAssertEqual(end.end, .ended, file: file, line: line)
        let numbers = d.shown.compactMap(\.number)
        XCTAssertEqual(numbers.count, d.shown.count, "\(spec.name): unreadable frames", file: file, line: line)
        XCTAssertEqual(numbers, numbers.sorted(), "\(spec.name): out of order", file: file, line: line)
        XCTAssertEqual(Set(numbers).count, numbers.count, "\(spec.name): a frame shown twice", file: file, line: line)
        XCTAssertEqual(end.status.presented + end.status.dropped, spec.frameCount, file: file, line: line)
        XCTAssertEqual(end.status.presented, d.shown.count, file: file, line: line)
        XCTAssertLessThanOrEqual(end.status.dropped, spec.frameCount / 3, "\(spec.name): dropped", file: file, line: line)
        let p = 1.0 / 60
        let t0 = d.shown[0].refresh - Double(numbers[0]) / Double(spec.fps)
        var stalled: [String] = [], offsets: [Double] = []
        for s in d.shown {
            let off = s.refresh - (t0 + Double(s.number!) / Double(spec.fps))
            offsets.append(off)
            XCTAssertGreaterThan(off, -p / 2 - 0.002, "\(spec.name): frame \(s.number!) early by \(-off)", file: file, line: line)
            if off >= 4 * p { stalled.append("\(s.number!): \(Int(off * 1000)) ms") }
        }
        XCTAssertLessThanOrEqual(stalled.count, max(2, spec.frameCount / 4), "\(spec.name): late by 4 refreshes or more: \(stalled)", file: file, line: line)
        let median = offsets.sorted()[offsets.count / 2]
        XCTAssertLessThanOrEqual(abs(median), p / 2 + 0.001, "\(spec.name): the typical frame is off by \(median)", file: file, line: line)
    }

    func testRealTime30fpsMP4() throws { try checkRealTime(ClipSpec(width: 640, height: 480, fps: 30, seconds: 1.5)) }
    func testRealTime25fpsRawAnnexB() throws { try checkRealTime(ClipSpec(width: 640, height: 480, fps: 25, seconds: 1.5, container: "h264")) }
    func testRealTime60fpsMatroska() throws {
        try checkRealTime(ClipSpec(width: 640, height: 480, fps: 60, seconds: 1, profile: "main", bframes: 2, container: "mkv"))
    }

    // MARK: geometry

    /// Every frame is the wall's size: the picture in `expect`, exactly `background` around
    /// it (the producer's reused buffers held older frames), reaching its rectangle's edges,
    /// turned as the clip says.
    func checkGeometry(_ spec: ClipSpec, expect: PixelRect, background: RGB = .black, file: StaticString = #filePath, line: UInt = #line) throws {
        let d = try driver(Clips.make(spec), background: background)
        var frames: [Frame] = []
        while !d.ended && d.k < 600 {
            if let f = try d.refresh(), frames.count < ClipSource.queueBound + 4 { frames.append(f) }
        }
        try eventually("onEnd", timeout: 10) { d.ended }
        let rect = d.rect(wall.width, wall.height)
        XCTAssertEqual(rect, expect, spec.name, file: file, line: line)
        XCTAssertEqual(d.ends.results.first?.end, .ended, file: file, line: line)
        XCTAssertEqual(d.shown.compactMap(\.number), Array(0..<spec.frameCount), file: file, line: line)
        // The first frames and the last: buffers reused after the first few.
        for f in frames + [try XCTUnwrap(d.last)] {
            XCTAssertEqual(f.width, wall.width, file: file, line: line)
            XCTAssertEqual(f.height, wall.height, file: file, line: line)
            for bar in [
                PixelRect(x: 0, y: 0, width: f.width, height: rect.y),
                PixelRect(x: 0, y: rect.maxY, width: f.width, height: f.height - rect.maxY),
                PixelRect(x: 0, y: rect.y, width: rect.x, height: rect.height),
                PixelRect(x: rect.maxX, y: rect.y, width: f.width - rect.maxX, height: rect.height),
            ] where !bar.isEmpty {
                XCTAssertTrue(f.isUniform(bar, background), "\(spec.name): bar \(bar) not exactly \(background)", file: file, line: line)
            }
            let midX = rect.x + rect.width / 2, midY = rect.y + rect.height / 2
            for (x, y) in [(rect.x, midY), (rect.maxX - 1, midY), (midX, rect.y), (midX, rect.maxY - 1)] {
                XCTAssertTrue(Reader.isBlueish(f.pixel(x: x, y: y)), "\(spec.name): (\(x), \(y)) is \(f.pixel(x: x, y: y))", file: file, line: line)
            }
            XCTAssertTrue(Reader.redCornerIsTopLeftOfSource(f, rect: rect, rotation: d.rotation), file: file, line: line)
        }
    }

    func testFourByThreeIsPillarboxed() throws {
        try checkGeometry(ClipSpec(width: 640, height: 480, fps: 25, seconds: 0.5), expect: PixelRect(x: 240, y: 0, width: 1440, height: 1080))
    }
    func testFullHDFillsTheScreen() throws {
        try checkGeometry(ClipSpec(width: 1920, height: 1080, fps: 30, seconds: 0.4, container: "mkv"), expect: PixelRect(x: 0, y: 0, width: 1920, height: 1080))
    }
    func testPortraitIsPillarboxed() throws {
        try checkGeometry(ClipSpec(width: 1080, height: 1920, fps: 30, seconds: 0.4), expect: PixelRect(x: 656, y: 0, width: 608, height: 1080))
    }
    /// 720×576 with 16:11 pixels is 1.818:1, wider than the screen: 1920×1056 at y = 12.
    func testAnamorphicIsLetterboxed() throws {
        try checkGeometry(ClipSpec(width: 720, height: 576, fps: 25, seconds: 0.4, sar: "16/11"), expect: PixelRect(x: 0, y: 12, width: 1920, height: 1056))
    }
    func testBarsTakeTheBackground() throws {
        try checkGeometry(
            ClipSpec(width: 640, height: 480, fps: 25, seconds: 0.4, container: "h264"), expect: PixelRect(x: 240, y: 0, width: 1440, height: 1080),
            background: RGB(40, 40, 40))
    }
    func testRotatedClipIsTurned() throws {
        try checkGeometry(ClipSpec(width: 640, height: 480, fps: 25, seconds: 0.4, rotateTag: 90), expect: PixelRect(x: 555, y: 0, width: 810, height: 1080))
    }

    // MARK: damaged files

    /// A damaged clip shows what decodes, in order, then ends once: no trap, no hang.
    func checkDamaged(_ path: String, frames: Int, atLeast: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let d: PaneDriver
        do { d = try driver(path) } catch {
            return XCTFail("\(path): can't open (\(error))", file: file, line: line)
        }
        try d.runToEnd()
        XCTAssertEqual(d.ends.results.count, 1, file: file, line: line)
        XCTAssertNotEqual(d.ends.results.first?.end, .stopped, "\(path): stopped?", file: file, line: line)
        // The intact start plays exactly; past the damage, frames the decoder conceals may
        // show parts of other pictures or be unreadable, and lost ones are skipped.
        let numbers = d.shown.map(\.number)
        XCTAssertEqual(numbers.prefix(atLeast).map { $0 }, (0..<atLeast).map { $0 }, "\(path): \(numbers)", file: file, line: line)
        XCTAssertTrue(numbers.allSatisfy { ($0 ?? 0) < frames }, "\(path): \(numbers)", file: file, line: line)
        XCTAssertLessThanOrEqual(numbers.count, frames, file: file, line: line)
        XCTAssertEqual(d.ends.results.first?.status.presented, numbers.count, file: file, line: line)
        // Time never ran away: the play took about as long as what was shown.
        if let first = d.shown.first, let last = d.shown.last {
            XCTAssertLessThan(last.refresh - first.refresh, Double(frames) / 25 + 1.5, file: file, line: line)
        }
    }

    func testTruncatedFilesPlayWhatTheyCan() throws {
        let n = 50
        for spec in [ClipSpec(fps: 25, seconds: 2, faststart: true), ClipSpec(fps: 25, seconds: 2, container: "mkv"), ClipSpec(fps: 25, seconds: 2, container: "h264")] {
            let cut = try Clips.truncated(Clips.make(spec), fraction: 0.6)
            try checkDamaged(cut, frames: n, atLeast: n * 4 / 10)
            XCTAssertNoThrow(try ClipProbe.probe(path: cut), "the probe still accepts it (the start decodes)")
        }
    }

    func testFlippedBytesPlayWhatTheyCan() throws {
        let n = 50
        for spec in [ClipSpec(fps: 25, seconds: 2, faststart: true), ClipSpec(fps: 25, seconds: 2, container: "mkv"), ClipSpec(fps: 25, seconds: 2, container: "h264")] {
            let path = try Clips.make(spec)
            // Keyframes (every 12) hold most of the bytes: half way in is past the first GOP.
            try checkDamaged(try Clips.flipped(path, at: 0.5, count: 300), frames: n, atLeast: 12)
            try checkDamaged(try Clips.flipped(path, at: 0.75, count: 200_000), frames: n, atLeast: 24)
        }
    }

    /// Bytes flipped all over (a seeded scatter, the header spared): never a trap or a hang.
    func testScatteredDamageEndsCleanly() throws {
        for spec in [ClipSpec(fps: 25, seconds: 2, faststart: true), ClipSpec(fps: 25, seconds: 2, container: "mkv"), ClipSpec(fps: 25, seconds: 2, container: "h264")] {
            let original = try Data(contentsOf: URL(fileURLWithPath: Clips.make(spec)))
            var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
            for round in 0..<8 {
                var data = original
                for _ in 0..<(4 + round * 4) {
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let at = data.count / 10 + Int(seed >> 33) % (data.count - data.count / 10)
                    data[at] ^= UInt8(truncatingIfNeeded: seed >> 20) | 1
                }
                let path = Clips.dir + "/scatter\(round)-" + spec.name
                try data.write(to: URL(fileURLWithPath: path))
                guard let d = try? driver(path) else { continue }   // refused at open: fine
                try d.runToEnd()
                XCTAssertEqual(d.ends.results.count, 1, path)
                XCTAssertNotEqual(d.ends.results.first?.end, .stopped)
                XCTAssertLessThanOrEqual(d.ends.results.first?.status.presented ?? 0, 50 + 2, path)
                if let first = d.shown.first, let last = d.shown.last {
                    XCTAssertLessThan(last.refresh - first.refresh, 2 + 2 * 1.0 + 0.1, "\(path): time ran away")
                }
            }
        }
    }

    // MARK: resources

    /// A hundred plays (a producer thread, a decoder, scaled buffers each): memory stays flat.
    func testHundredPlaysDoNotGrowMemory() throws {
        let path = try Clips.make(ClipSpec(width: 640, height: 480, fps: 25, seconds: 0.6, gop: 5))
        func once() throws {
            let d = try PaneDriver(path, width: 640, height: 360)
            try d.runToEnd()
            XCTAssertEqual(d.ends.results.first?.end, .ended)
            XCTAssertEqual(d.ends.results.first?.status.presented, 15)
        }
        for _ in 0..<5 { try once() }
        let before = Footprint.residentBytes()
        for _ in 0..<100 { try once() }
        let after = Footprint.residentBytes()
        let grown = Double(after - before) / 1_048_576
        print("resident memory: \(before / 1_048_576) MB before, \(after / 1_048_576) MB after 100 plays")
        XCTAssertLessThan(grown, 20, "resident memory grew \(grown) MB over 100 plays")
    }
}
