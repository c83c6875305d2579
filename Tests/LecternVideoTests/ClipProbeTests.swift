import Foundation
import LecternModel
import LecternTestSupport
import LecternVideo
import XCTest

final class ClipProbeTests: XCTestCase {
    func testNotAVideoIsRefused() throws {
        let path = NSTemporaryDirectory() + "not-a-clip-\(UUID().uuidString).mp4"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try ClipProbe.probe(path: path)) { error in
            guard case .unsupportedMedia(let detail)? = error as? ContentError else {
                return XCTFail("expected unsupportedMedia, got \(error)")
            }
            XCTAssertTrue(detail.contains("not a video"), detail)
        }
    }

    func testEmptyAndMissingFilesAreRefused() throws {
        let dir = Fixtures.tempDir("probe")
        let empty = dir + "/empty.mp4"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        XCTAssertThrowsError(try ClipProbe.probe(path: empty)) { XCTAssertEqual($0 as? ContentError, .empty) }
        XCTAssertThrowsError(try ClipProbe.probe(path: dir + "/missing.mp4")) {
            guard case .unreadable? = $0 as? ContentError else { return XCTFail("\($0)") }
        }
    }

    func testProbeDescribesMP4() throws {
        let info = try ClipProbe.probe(path: Clips.make(ClipSpec(width: 640, height: 480, fps: 25, seconds: 2)))
        XCTAssertEqual(info.codec, "h264")
        XCTAssertEqual(info.width, 640); XCTAssertEqual(info.height, 480)
        XCTAssertEqual(info.frameRate, 25, accuracy: 0.01)
        XCTAssertEqual(info.duration, 2.0, accuracy: 0.05)
        XCTAssertEqual(info.rotation, 0); XCTAssertEqual(info.sampleAspect, 1)
        XCTAssertTrue(info.container.contains("mp4"), info.container)
    }

    func testProbeDescribesMatroskaWithSampleAspect() throws {
        let info = try ClipProbe.probe(
            path: Clips.make(
                ClipSpec(
                    width: 720, height: 576, fps: 25, seconds: 1,
                    container: "mkv", sar: "16/11")))
        XCTAssertEqual(info.width, 720); XCTAssertEqual(info.height, 576)
        XCTAssertEqual(info.sampleAspect, 16.0 / 11, accuracy: 1e-9)
        XCTAssertEqual(info.duration, 1.0, accuracy: 0.05)
        XCTAssertEqual(info.shape.displayAspect, 720.0 * 16 / 11 / 576, accuracy: 1e-9)
    }

    /// Raw Annex B has no timestamps or duration: the rate comes from the SPS, the duration
    /// from counting the frames.
    func testProbeDescribesRawAnnexB() throws {
        let info = try ClipProbe.probe(
            path: Clips.make(
                ClipSpec(
                    width: 640, height: 480, fps: 30, seconds: 1.5,
                    container: "h264")))
        XCTAssertEqual(info.codec, "h264")
        XCTAssertEqual(info.container, "h264")
        XCTAssertEqual(info.frameRate, 30, accuracy: 0.01)
        XCTAssertEqual(info.duration, 1.5, accuracy: 0.001)
    }

    /// MPEG-TS, the broadcast container: H.264 in it plays like in MP4 (decoded frames
    /// checked by their numbers).
    func testProbeDescribesMPEGTS() throws {
        let path = try Clips.make(ClipSpec(width: 640, height: 480, fps: 25, seconds: 1, container: "ts"))
        let info = try ClipProbe.probe(path: path)
        XCTAssertEqual(info.codec, "h264")
        XCTAssertEqual(info.container, "mpegts")
        XCTAssertEqual([info.width, info.height], [640, 480])
        XCTAssertEqual(info.frameRate, 25, accuracy: 0.01)
        XCTAssertEqual(ClipProbe.container(path: path), "mpegts")
    }

    /// What FFmpeg reads as a container (whatever plays in it); not a still picture, text or noise.
    func testContainerNamesWhatFFmpegReads() throws {
        XCTAssertEqual(ClipProbe.container(path: try Clips.make(ClipSpec(seconds: 0.4, container: "mkv"))), "matroska,webm")
        XCTAssertEqual(ClipProbe.container(path: try Clips.make(ClipSpec(seconds: 0.4, container: "h264"))), "h264")
        XCTAssertTrue(ClipProbe.container(path: try Clips.make(ClipSpec(seconds: 0.4)))?.contains("mp4") == true)
        let dir = Fixtures.tempDir("container")
        let png = dir + "/still.png", jpeg = dir + "/still.jpg", text = dir + "/notes.txt", noise = dir + "/noise.bin"
        try Clips.ffmpeg(["-y", "-v", "error", "-f", "lavfi", "-i", "color=c=red:s=64x48", "-frames:v", "1", png])
        try Clips.ffmpeg(["-y", "-v", "error", "-f", "lavfi", "-i", "color=c=red:s=64x48", "-frames:v", "1", jpeg])
        try Data("just some text, not a clip\n".utf8).write(to: URL(fileURLWithPath: text))
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15   // fixed noise (xorshift), the same every run
        try Data(
            (0..<65536).map { _ in
                x ^= x << 13; x ^= x >> 7; x ^= x << 17
                return UInt8(truncatingIfNeeded: x >> 24)
            }
        ).write(to: URL(fileURLWithPath: noise))
        for path in [png, jpeg, text, noise, dir + "/missing.mp4"] { XCTAssertNil(ClipProbe.container(path: path), path) }
    }

    func testAudioOnlyIsRefused() throws {
        let path = Clips.dir + "/tone.m4a"
        try Clips.ffmpeg(["-y", "-v", "error", "-f", "lavfi", "-i", "sine=d=1", "-c:a", "aac", path])
        XCTAssertThrowsError(try ClipProbe.probe(path: path)) { error in
            XCTAssertEqual(error as? ContentError, .unsupportedMedia(detail: "it has no video"))
            XCTAssertEqual((error as? ContentError)?.description, "This file can't be played: it has no video.")
        }
    }

    func testTooBigIsRefused() throws {
        let path = try Clips.make(ClipSpec(width: 2560, height: 1440, fps: 25, seconds: 0.2, gop: 5))
        XCTAssertThrowsError(try ClipProbe.probe(path: path)) { error in
            guard case .unsupportedMedia(let d)? = error as? ContentError else { return XCTFail("\(error)") }
            XCTAssertTrue(d.contains("2560×1440"), d)
        }
        // The decoder itself plays it (the limit is the probe's).
        XCTAssertNoThrow(try ClipDecoder(path: path).close())
    }

    /// An MP4 whose index (moov) sits at the end can't be played once cut short.
    func testTruncatedMP4WithoutIndexIsRefused() throws {
        let cut = try Clips.truncated(Clips.make(ClipSpec(fps: 25, seconds: 2)), fraction: 0.6)
        XCTAssertThrowsError(try ClipProbe.probe(path: cut)) {
            guard case .unsupportedMedia? = $0 as? ContentError else { return XCTFail("\($0)") }
        }
    }

    func testDecoderClosesAndRefusesUse() throws {
        let d = try ClipDecoder(path: Clips.make(ClipSpec(fps: 25, seconds: 0.4)))
        XCTAssertNotNil(try d.nextFrame())
        d.close()
        XCTAssertTrue(d.isClosed)
        XCTAssertThrowsError(try d.nextFrame())
        XCTAssertThrowsError(try d.seek(to: 0))
        d.close()   // twice is fine
    }
}
