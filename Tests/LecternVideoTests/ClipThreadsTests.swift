import Foundation
import LecternModel
import LecternTestSupport
import LecternVideo
import XCTest

/// A clip decodes and scales on its pane's share of the cores: all of them alone on the
/// wall, `cores / panes` beside others; a decoder takes its share only before it starts.
final class ClipThreadsTests: XCTestCase {
    func testAPaneGetsItsShareOfTheCores() {
        let table: [(cores: Int, panes: Int, decoder: Int, scaler: Int)] = [
            (2, 1, 0, 2),   // alone: FFmpeg's pick, a slice thread per core
            (8, 1, 0, 4),   // the scaler's slices stop at 4
            (1, 1, 0, 1),
            (2, 2, 1, 1),   // split on two cores: one each
            (4, 2, 2, 2),
            (4, 4, 1, 1),   // quad
            (2, 4, 1, 1),   // never below one
            (16, 2, 8, 4),
            (0, 2, 1, 1),   // a machine that says nothing has a core
        ]
        for row in table {
            let t = ClipThreads(cores: row.cores, panes: row.panes)
            XCTAssertEqual(t, ClipThreads(decoder: row.decoder, scaler: row.scaler), "\(row.cores) cores, \(row.panes) panes")
        }
        XCTAssertEqual(ClipThreads(decoder: -3, scaler: 0), ClipThreads(decoder: 0, scaler: 1), "clamped")
    }

    /// Decodes what is left of `d`, checking each frame shows its number from `first` on.
    func checkNumbers(_ d: ClipDecoder, from first: Int, count: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let rect = Fit.rect(for: d.info.shape, width: 640, height: 360)
        let out = Frame(width: 640, height: 360)
        var n = first
        while let f = try d.nextFrame() {
            try f.draw(into: out, rect: rect)
            XCTAssertEqual(Reader.number(out, rect: rect), n, "frame \(n)", file: file, line: line)
            n += 1
        }
        XCTAssertEqual(n, count, "frames", file: file, line: line)
        XCTAssertEqual(d.decodeErrors, 0, file: file, line: line)
    }

    func testADecoderTakesItsShareBeforeItStartsAndKeepsItsThreadsAfter() throws {
        let spec = ClipSpec(width: 640, height: 360, fps: 25, seconds: 1)
        let alone = try ClipDecoder(path: Clips.make(spec))
        defer { alone.close() }
        XCTAssertEqual(alone.scalingThreads, ClipThreads.alone.scaler)
        if ClipThreads.onThisMachine > 1 {
            XCTAssertGreaterThan(alone.decodingThreads, 1, "alone on the wall, FFmpeg's frame threads")
        }

        let d = try ClipDecoder(path: Clips.make(spec))
        defer { d.close() }
        d.useThreads(ClipThreads(cores: 2, panes: 2))
        XCTAssertEqual(d.decodingThreads, 1, "opened again on its share")
        XCTAssertEqual(d.scalingThreads, 1)
        let f0 = try XCTUnwrap(d.nextFrame())
        let out = Frame(width: 640, height: 360)
        try f0.draw(into: out, rect: PixelRect(x: 0, y: 0, width: 640, height: 360))
        XCTAssertEqual(Reader.number(out, rect: PixelRect(x: 0, y: 0, width: 640, height: 360)), 0)

        // Started: the decoder keeps its thread (nothing interrupted), the scaler follows.
        d.useThreads(ClipThreads(decoder: 3, scaler: 2))
        XCTAssertEqual(d.decodingThreads, 1)
        XCTAssertEqual(d.scalingThreads, 2)
        try checkNumbers(d, from: 1, count: spec.frameCount)

        // A seek decodes (from the keyframe before): the decoder has started.
        let s = try ClipDecoder(path: Clips.make(spec))
        defer { s.close() }
        try s.seek(to: 0.4)
        s.useThreads(ClipThreads(decoder: 1, scaler: 1))
        XCTAssertEqual(s.decodingThreads == 1, ClipThreads.onThisMachine <= 1, "a decoder that has decoded keeps its threads")
        try checkNumbers(s, from: 10, count: spec.frameCount)
    }
}
