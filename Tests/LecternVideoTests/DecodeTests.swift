import Foundation
import LecternModel
import LecternTestSupport
import LecternVideo
import XCTest

/// Decoding and drawing: every frame shows the number its timestamp says, pixels land in
/// the right place with the right colours, seeks land on the exact frame.
final class DecodeTests: XCTestCase {
    let mode = DisplayMode.fullHD

    /// Decodes all of `spec`, draws each frame where `Fit` puts it on 1920×1080 and reads its
    /// number back: 0, 1, 2 … with times n / fps.
    func checkFrames(_ spec: ClipSpec, file: StaticString = #filePath, line: UInt = #line) throws {
        let d = try ClipDecoder(path: Clips.make(spec))
        defer { d.close() }
        XCTAssertEqual(d.info.codec, spec.encoder == "libx264" ? "h264" : spec.encoder, file: file, line: line)
        XCTAssertEqual(d.info.frameRate, Double(spec.fps), accuracy: 0.01, file: file, line: line)
        let rect = Fit.rect(for: d.info.shape, width: mode.width, height: mode.height)
        let out = Frame(width: mode.width, height: mode.height)
        var n = 0
        while let f = try d.nextFrame() {
            try f.draw(into: out, rect: rect)
            let read = Reader.number(out, rect: rect, rotation: d.info.rotation)
            XCTAssertEqual(read, n, "\(spec.name): frame \(n) shows \(read.map(String.init) ?? "garbage")", file: file, line: line)
            XCTAssertEqual(
                f.time, Double(n) / Double(spec.fps), accuracy: 0.3 / Double(spec.fps),
                "\(spec.name): time of frame \(n)", file: file, line: line)
            n += 1
        }
        XCTAssertEqual(n, spec.frameCount, "\(spec.name): frame count", file: file, line: line)
        XCTAssertEqual(d.decodeErrors, 0, file: file, line: line)
        XCTAssertNil(d.readError, file: file, line: line)
    }

    func testMP4Baseline25() throws { try checkFrames(ClipSpec(width: 640, height: 480, fps: 25, profile: "baseline")) }
    func testMatroskaMain30WithBFrames() throws {
        try checkFrames(ClipSpec(width: 640, height: 480, fps: 30, profile: "main", bframes: 2, container: "mkv"))
    }
    func testRawAnnexBHigh30WithBFrames() throws {
        try checkFrames(ClipSpec(width: 640, height: 480, fps: 30, profile: "high", bframes: 3, container: "h264"))
    }
    func testFullHDMP4High30() throws { try checkFrames(ClipSpec(width: 1920, height: 1080, fps: 30, seconds: 1.5)) }
    func testPortraitMatroska60() throws {
        try checkFrames(ClipSpec(width: 1080, height: 1920, fps: 60, seconds: 1.5, container: "mkv"))
    }
    func testAnamorphicRawAnnexB25() throws {
        try checkFrames(ClipSpec(width: 720, height: 576, fps: 25, seconds: 1.2, profile: "main", container: "h264", sar: "16/11"))
    }
    func testQuickTimeMOV() throws {
        try checkFrames(ClipSpec(width: 640, height: 480, fps: 30, seconds: 1, profile: "main", bframes: 2, container: "mov"))
    }
    /// Not only H.264: what FFmpeg decodes plays (MPEG-4 Part 2 here).
    func testOtherCodecsPlayToo() throws {
        try checkFrames(ClipSpec(width: 640, height: 480, fps: 25, seconds: 1, container: "mkv", encoder: "mpeg4"))
    }
    func testRaw60Baseline() throws {
        try checkFrames(ClipSpec(width: 640, height: 480, fps: 60, seconds: 1, profile: "baseline", container: "h264"))
    }

    // MARK: pixels

    /// AV_PIX_FMT_BGR0 must come out as XRGB8888 words 0x00RRGGBB: a red clip reads red.
    func testPixelBytesAreXRGB8888() throws {
        let path = Clips.dir + "/solid-red.mp4"
        try Clips.ffmpeg([
            "-y", "-v", "error", "-f", "lavfi", "-i", "color=c=0xDC1E28:s=320x240:r=25:d=0.2",
            "-c:v", "libx264", "-pix_fmt", "yuv444p", "-profile:v", "high444", path,
        ])
        let d = try ClipDecoder(path: path)
        defer { d.close() }
        let out = Frame(width: 320, height: 240)
        try XCTUnwrap(d.nextFrame()).draw(into: out, rect: out.bounds)
        let word = (out.baseAddress + 120 * out.stride + 160 * 4).load(as: UInt32.self)
        XCTAssertEqual(Double((word >> 16) & 0xFF), 0xDC, accuracy: 6, String(word, radix: 16))
        XCTAssertEqual(Double((word >> 8) & 0xFF), 0x1E, accuracy: 6, String(word, radix: 16))
        XCTAssertEqual(Double(word & 0xFF), 0x28, accuracy: 6, String(word, radix: 16))
    }

    /// The stream's colour matrix and range are honoured: a clip converted to YUV with BT.709
    /// (limited and full range) and tagged so comes back as the colour it was made from, drawn
    /// at its own size (converted only) and scaled (scaled in 4:2:0, then converted).
    func testColourMatrixAndRangeAreHonoured() throws {
        for range in ["tv", "pc"] {
            let path = Clips.dir + "/red-bt709-\(range).mp4"
            try Clips.ffmpeg([
                "-y", "-v", "error", "-f", "lavfi", "-i", "color=c=0xDC1E28:s=320x240:r=25:d=0.2",
                "-vf", "scale=out_color_matrix=bt709:out_range=\(range),format=yuv420p",
                "-c:v", "libx264", "-colorspace", "bt709", "-color_primaries", "bt709",
                "-color_trc", "bt709", "-color_range", range, path,
            ])
            let d = try ClipDecoder(path: path)
            defer { d.close() }
            for (width, height) in [(320, 240), (160, 120)] {
                let out = Frame(width: width, height: height)
                try XCTUnwrap(d.nextFrame()).draw(into: out, rect: out.bounds)
                let c = out.pixel(x: width / 2, y: height / 2)
                XCTAssertEqual(Double(c.r), 220, accuracy: 5, "\(range) at \(width)×\(height): \(c)")
                XCTAssertEqual(Double(c.g), 30, accuracy: 5, "\(range) at \(width)×\(height): \(c)")
                XCTAssertEqual(Double(c.b), 40, accuracy: 5, "\(range) at \(width)×\(height): \(c)")
            }
        }
    }

    /// Our conversion and scaling match FFmpeg's own (colour matrix, range, scaler).
    func testScaledPictureMatchesFFmpeg() throws {
        let spec = ClipSpec(width: 640, height: 480, fps: 25, seconds: 0.4)
        let path = try Clips.make(spec)
        let d = try ClipDecoder(path: path)
        defer { d.close() }
        let rect = Fit.rect(for: d.info.shape, width: 1920, height: 1080)
        XCTAssertEqual(rect, PixelRect(x: 240, y: 0, width: 1440, height: 1080))
        let out = Frame(width: 1920, height: 1080)
        try XCTUnwrap(d.nextFrame()).draw(into: out, rect: rect)
        let ref = try ffmpegFrame(path, width: rect.width, height: rect.height)
        let diff = PixelCompare.meanDifference(out, rect, ref)
        XCTAssertLessThan(diff, 3, "mean difference from ffmpeg's scale")
    }

    /// Scaling writes nothing outside the rectangle: widths not a multiple of 16 (libswscale's
    /// SIMD writes past them), unscaled and scaled, against the frame's bottom-right corner,
    /// unrotated and rotated.
    func testDrawWritesOnlyInsideTheRect() throws {
        let canary = RGB(200, 0, 200)
        for (spec, rects) in [
            (
                ClipSpec(width: 642, height: 482, fps: 25, seconds: 0.2, gop: 5),
                [
                    PixelRect(x: 101, y: 37, width: 642, height: 482), PixelRect(x: 1000 - 642, y: 700 - 482, width: 642, height: 482),
                    PixelRect(x: 7, y: 5, width: 322, height: 241), PixelRect(x: 1000 - 644, y: 700 - 483, width: 644, height: 483),
                    PixelRect(x: 7, y: 5, width: 333, height: 251), PixelRect(x: 999 - 640, y: 699 - 483, width: 640, height: 483),
                ]
            ),
            (
                ClipSpec(width: 642, height: 482, fps: 25, seconds: 0.2, rotateTag: 90, gop: 5),
                [
                    PixelRect(x: 13, y: 3, width: 483, height: 643), PixelRect(x: 0, y: 0, width: 251, height: 333),
                    PixelRect(x: 1000 - 242, y: 700 - 322, width: 242, height: 322),
                ]
            ),
        ] {
            let d = try ClipDecoder(path: Clips.make(spec))
            defer { d.close() }
            let f = try XCTUnwrap(d.nextFrame())
            for rect in rects {
                let out = Frame(width: 1000, height: 700, color: canary)
                try f.draw(into: out, rect: rect)
                let w = out.width, h = out.height
                for bar in [
                    PixelRect(x: 0, y: 0, width: w, height: rect.y),
                    PixelRect(x: 0, y: rect.maxY, width: w, height: h - rect.maxY),
                    PixelRect(x: 0, y: rect.y, width: rect.x, height: rect.height),
                    PixelRect(x: rect.maxX, y: rect.y, width: w - rect.maxX, height: rect.height),
                ] {
                    XCTAssertTrue(out.isUniform(bar, canary), "\(spec.name) drawn at \(rect) wrote into \(bar)")
                }
                XCTAssertTrue(Reader.isBlueish(out.pixel(x: rect.maxX - 1, y: rect.maxY - 1)), "\(spec.name) \(rect)")
                XCTAssertEqual(Reader.number(out, rect: rect, rotation: d.info.rotation), 0)
            }
            XCTAssertThrowsError(try f.draw(into: Frame(width: 100, height: 100), rect: PixelRect(x: 50, y: 0, width: 60, height: 10)))
        }
    }

    /// The display matrix turns the picture: the red corner of the source goes where
    /// FFmpeg's autorotate puts it, and the whole picture matches FFmpeg's.
    func testRotationFollowsTheDisplayMatrix() throws {
        for tag in [90, 180, 270] {
            let spec = ClipSpec(width: 640, height: 480, fps: 25, seconds: 0.4, rotateTag: tag)
            let path = try Clips.make(spec)
            let d = try ClipDecoder(path: path)
            defer { d.close() }
            let rot = d.info.rotation
            XCTAssertTrue([90, 180, 270].contains(rot), "tag \(tag) gave rotation \(rot)")
            let rect = Fit.rect(for: d.info.shape, width: 1920, height: 1080)
            if rot % 180 == 90 {
                XCTAssertEqual(rect, PixelRect(x: 555, y: 0, width: 810, height: 1080))
            } else {
                XCTAssertEqual(rect, PixelRect(x: 240, y: 0, width: 1440, height: 1080))
            }
            let out = Frame(width: 1920, height: 1080)
            try XCTUnwrap(d.nextFrame()).draw(into: out, rect: rect)
            XCTAssertTrue(Reader.redCornerIsTopLeftOfSource(out, rect: rect, rotation: rot), "tag \(tag)")
            XCTAssertEqual(Reader.number(out, rect: rect, rotation: rot), 0)
            let ref = try ffmpegFrame(path, width: rect.width, height: rect.height)
            XCTAssertLessThan(PixelCompare.meanDifference(out, rect, ref), 3, "tag \(tag): differs from ffmpeg's autorotate")
            let second = try XCTUnwrap(d.nextFrame())
            try second.draw(into: out, rect: rect)
            XCTAssertEqual(Reader.number(out, rect: rect, rotation: rot), 1)
        }
    }

    // MARK: seeking

    func checkSeeks(_ spec: ClipSpec, file: StaticString = #filePath, line: UInt = #line) throws {
        let d = try ClipDecoder(path: Clips.make(spec))
        defer { d.close() }
        let fps = Double(spec.fps)
        let rect = Fit.rect(for: d.info.shape, width: 1920, height: 1080)
        let out = Frame(width: 1920, height: 1080)
        let last = spec.frameCount - 1
        // Just before, on and after keyframes (every 12), mid-GOP, backwards, the start.
        let frames: [Double] = [30.2, 11, 12, 13, 23.9, 24.4, 5.6, 0, Double(last) - 0.3, 17.45, 1]
        for target in frames.map({ $0 / fps }) + [d.info.duration + 5] {
            try d.seek(to: target)
            let expect = min(last, Int((target * fps).rounded()))
            let f = try XCTUnwrap(d.nextFrame(), "\(spec.name): seek to \(target)", file: file, line: line)
            try f.draw(into: out, rect: rect)
            XCTAssertEqual(Reader.number(out, rect: rect), expect, "\(spec.name): seek to \(target) s", file: file, line: line)
            XCTAssertEqual(f.time, Double(expect) / fps, accuracy: 0.3 / fps, file: file, line: line)
            if expect < last, let g = try d.nextFrame() {
                try g.draw(into: out, rect: rect)
                XCTAssertEqual(Reader.number(out, rect: rect), expect + 1, "\(spec.name): after seek to \(target) s", file: file, line: line)
            }
        }
    }

    func testSeekLandsOnExactFrameMP4WithBFrames() throws {
        try checkSeeks(ClipSpec(width: 640, height: 480, fps: 25, seconds: 2, profile: "high", bframes: 3))
    }
    func testSeekLandsOnExactFrameMatroska() throws {
        try checkSeeks(ClipSpec(width: 640, height: 480, fps: 30, seconds: 2, profile: "main", bframes: 2, container: "mkv"))
    }
    func testSeekLandsOnExactFrameRawAnnexB() throws {
        try checkSeeks(ClipSpec(width: 640, height: 480, fps: 30, seconds: 2, profile: "high", container: "h264"))
    }
    /// MPEG-TS seeks by decode timestamps (binary search): the keyframe found may show
    /// after the target, and the seek has to look further back.
    func testSeekLandsOnExactFrameMPEGTS() throws {
        let spec = ClipSpec(width: 640, height: 480, fps: 25, seconds: 2, profile: "high", bframes: 3, container: "ts")
        try checkFrames(spec)
        try checkSeeks(spec)
    }
    func testSeekLandsOnExactFrameLongGOP() throws {
        try checkSeeks(ClipSpec(width: 640, height: 480, fps: 25, seconds: 2, profile: "high", bframes: 3, gop: 250))
    }

    // MARK: helpers

    /// FFmpeg's own first frame of `path`, autorotated and scaled to `width`×`height`.
    func ffmpegFrame(_ path: String, width: Int, height: Int) throws -> Frame {
        let r = try Fixtures.run(
            "ffmpeg",
            [
                "-v", "error", "-i", path, "-vf", "scale=\(width):\(height)", "-frames:v", "1",
                "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
            ])
        guard r.status == 0, r.out.count == width * height * 3 else {
            throw Fixtures.ToolError(description: "ffmpeg reference frame failed: \(r.err)")
        }
        var header = Data("P6\n\(width) \(height)\n255\n".utf8)
        header.append(r.out)
        return try PPM.decode(header)
    }
}
