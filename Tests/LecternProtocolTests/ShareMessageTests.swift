import Foundation
import LecternModel
import LecternProtocol
import LecternTestKit
import LecternTestSupport
import XCTest

/// Live sharing's bodies (docs/protocol.md §29.2), byte for byte, their limits, and the
/// Annex B cutting and SPS reading `lectern share` relies on (on streams made by ffmpeg).
final class ShareMessageTests: XCTestCase {
    func roundTrip(_ m: Message, sentBy: Sender, file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = m.encode(tag: 5, deviceID: 3)
        let back = try Message.decode(WireFrame(header: FrameHeader.decode(bytes), body: Array(bytes[8...])), sentBy: sentBy)
        XCTAssertEqual(back, m, file: file, line: line)
    }

    func testEveryBodyRoundTripsAndTheBytesAreAsDocumented() throws {
        let begin = ShareConfig(codec: .vp8, source: .camera, placement: .beside, width: 1080, height: 1920, frameRate: 30, bitrate: 4_000_000)
        XCTAssertEqual(Message.share(.begin(begin)).encodeBody(), [2, 2, 1, 0, 0x04, 0x38, 0x07, 0x80, 0, 30, 0x00, 0x3D, 0x09, 0x00])
        try roundTrip(.share(.begin(begin)), sentBy: .client)
        let frame = ShareFrame(sequence: 7, timestamp: 0x0102_0304_0506, key: true, data: [0, 0, 1, 0x65, 0x88])
        XCTAssertEqual(
            Message.share(.frame(frame)).encodeBody(), [1, 0, 0, 0, 0, 0, 0, 7, 0, 0, 1, 2, 3, 4, 5, 6, 0, 0, 1, 0x65, 0x88])
        try roundTrip(.share(.frame(frame)), sentBy: .client)
        try roundTrip(.share(.ready(ShareReady(status: .live, pane: 1, frameRate: 30, bitrate: 5_000_000))), sentBy: .server)
        try roundTrip(.share(.ready(ShareReady(status: .waiting, pane: nil, frameRate: 30, bitrate: 5_000_000))), sentBy: .server)
        try roundTrip(.share(.ack(ShareAck(sequence: 9, decoded: 8, dropped: 1, queuedBytes: 1234))), sentBy: .server)
        try roundTrip(.share(.keyRequest(sequence: 12)), sentBy: .server)
        try roundTrip(.share(.advice(ShareAdvice(bitrate: 2_000_000, frameRate: 20, reason: .decoder))), sentBy: .server)
        try roundTrip(.share(.control(.pause)), sentBy: .client)
        try roundTrip(.share(.moderate(device: 4, .approveBeside)), sentBy: .client)
        try roundTrip(.share(.ended(.shareWithdrawn)), sentBy: .server)
        try roundTrip(.share(.picture(device: 4, maxWidth: 320, maxHeight: 180)), sentBy: .client)
        XCTAssertEqual(Message.share(.ended(.shareWithdrawn)).error, .shareWithdrawn)
        XCTAssertEqual(Message.success(replyingTo: .shareControl), .ok)
        XCTAssertEqual(Message.success(replyingTo: .shareModerate), .ok)
        XCTAssertEqual((0xD0...0xD9).compactMap { Command(rawValue: $0)?.description.hasPrefix("share-") }, Array(repeating: true, count: 10))
    }

    func testBadBodiesAreMalformed() {
        func decode(_ c: Command, _ body: [UInt8]) throws -> Message {
            try Message.decode(header: FrameHeader(command: c.rawValue, deviceID: 1, tag: 1, length: UInt32(8 + body.count)), body: body, sentBy: .client)
        }
        assertThrowsCode(.malformedBody) { try decode(.shareBegin, [9, 1, 0, 0, 0, 16, 0, 16, 0, 30, 0, 1, 0, 0]) }   // codec 9
        assertThrowsCode(.malformedBody) { try decode(.shareBegin, [1, 1, 0, 0, 0, 16]) }
        assertThrowsCode(.malformedBody) { try decode(.shareFrame, [1, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 1]) }   // no data
        assertThrowsCode(.malformedBody) { try decode(.shareControl, [4]) }
        assertThrowsCode(.malformedBody) { try decode(.shareModerate, [3, 9]) }
        assertThrowsCode(.unknownCommand) { try decode(.shareAck, [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]) }   // server-only
    }

    func testTheLimitsOfABegin() {
        let ok = ShareConfig(codec: .h264, width: 1920, height: 1200, frameRate: 60, bitrate: 20_000_000)
        XCTAssertNil(ok.check())
        for bad in [
            ShareConfig(codec: .h264, width: 1921, height: 1080, frameRate: 30, bitrate: 5_000_000),
            ShareConfig(codec: .h264, width: 1920, height: 1202, frameRate: 30, bitrate: 5_000_000),
            ShareConfig(codec: .h264, width: 8, height: 8, frameRate: 30, bitrate: 5_000_000),
            ShareConfig(codec: .h264, width: 1280, height: 720, frameRate: 61, bitrate: 5_000_000),
            ShareConfig(codec: .h264, width: 1280, height: 720, frameRate: 0, bitrate: 5_000_000),
            ShareConfig(codec: .h264, width: 1280, height: 720, frameRate: 30, bitrate: 20_000_001),
        ] {
            XCTAssertEqual(bad.check()?.code, .shareUnsupported, "\(bad)")
        }
    }

    /// ffmpeg's H.264 cut into access units: one per picture, the first a key frame with its
    /// SPS, the size read back from the SPS (cropping included: 1918×1078 is coded 1920×1088).
    func testAnnexBIsCutIntoPicturesAndTheSPSGivesTheSize() throws {
        let dir = Fixtures.tempDir("annexb")
        for (w, h) in [(640, 480), (1918, 1078), (1080, 1920)] {
            let path = try Fixtures.annexB(in: dir, width: w, height: h, frames: 12, color: nil, keyEvery: 5, name: "s\(w).h264")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            var s = AnnexBSplitter()
            var units: [AnnexBSplitter.Unit] = []
            // Fed in odd slices, as a pipe delivers them.
            var i = 0
            while i < bytes.count {
                let n = min(997, bytes.count - i)
                units += s.feed(Array(bytes[i..<(i + n)]))
                i += n
            }
            if let last = s.finish() { units.append(last) }
            XCTAssertEqual(units.count, 12, "\(w)×\(h): one unit per picture")
            XCTAssertEqual(units.map(\.key), (0..<12).map { $0 % 5 == 0 }, "\(w)×\(h): key frames every 5")
            XCTAssertEqual(units.reduce(0) { $0 + $1.bytes.count }, bytes.count, "nothing lost or added")
            let size = try XCTUnwrap(AnnexB.pictureSize(units[0].bytes))
            XCTAssertEqual(size.width, w)
            XCTAssertEqual(size.height, h)
        }
        let huge = try XCTUnwrap(AnnexB.pictureSize(Fixtures.hugeSPSKeyFrame()))
        XCTAssertEqual(huge.width, 16384)
        XCTAssertEqual(huge.height, 16384)
    }
}
