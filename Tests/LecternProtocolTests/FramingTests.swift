import XCTest
@testable import LecternProtocol
import LecternTestKit

final class FramingTests: XCTestCase {
    func testVersionIsOne() { XCTAssertEqual(lecternProtocolVersion, 1) }

    func testHeaderRoundTripAndByteOrder() throws {
        let h = FrameHeader(command: 0x0C, deviceID: 3, tag: 0x1234, length: 0x0102_0304)
        XCTAssertEqual(h.encode(), [0x0C, 0x03, 0x12, 0x34, 0x01, 0x02, 0x03, 0x04])
        XCTAssertEqual(FrameHeader.peek(h.encode()), h)
        let small = FrameHeader(command: 1, deviceID: 0xFF, tag: 0, length: 8)
        XCTAssertEqual(try FrameHeader.decode(small.encode()), small)
    }

    func testHeaderRejectsBadLengths() {
        for length: UInt32 in [0, 1, 7] {
            assertThrowsCode(.malformedFrame) { try FrameHeader.decode(FrameHeader(command: 1, deviceID: 1, tag: 1, length: length).encode()) }
        }
        for length: UInt32 in [ProtocolLimits.maxFrameLength + 1, 0xFFFF_FFFF] {
            assertThrowsCode(.frameTooLarge) { try FrameHeader.decode(FrameHeader(command: 1, deviceID: 1, tag: 1, length: length).encode()) }
        }
        XCTAssertNoThrow(try FrameHeader.decode(FrameHeader(command: 1, deviceID: 1, tag: 1, length: ProtocolLimits.maxFrameLength).encode()))
        assertThrowsCode(.malformedFrame) { try FrameHeader.decode([1, 2, 3]) }
    }

    func testDecoderSplitsAtEveryBoundary() throws {
        let messages = sampleMessages()
        var stream: [UInt8] = []
        for (i, m) in messages.enumerated() { stream += m.encode(tag: UInt16(i), deviceID: UInt8(i % 256)) }
        // Every single split point of the whole stream into two slices.
        for cut in stride(from: 0, through: stream.count, by: 7) {
            var d = FrameDecoder()
            var frames = try d.decode(stream[..<cut])
            frames += try d.decode(stream[cut...])
            XCTAssertEqual(frames.count, messages.count, "cut at \(cut)")
            XCTAssertEqual(d.bufferedByteCount, 0)
        }
        // Random slice sizes, including one byte at a time.
        var rng = SplitMix(seed: 42)
        for maxSlice in [1, 2, 3, 9, 100, 5000] {
            var d = FrameDecoder()
            var got: [Message] = []
            var i = 0
            while i < stream.count {
                let n = Int.random(in: 1...maxSlice, using: &rng)
                let end = min(stream.count, i + n)
                for f in try d.decode(stream[i..<end]) { got.append(try Message.decode(f)) }
                i = end
            }
            XCTAssertEqual(got, messages, "slices up to \(maxSlice)")
            XCTAssertEqual(d.bufferedByteCount, 0)
        }
    }

    func testSeveralFramesInOneSliceKeepTagsAndIDs() throws {
        let a = Message.ping(nonce: 1).encode(tag: 7, deviceID: 0xFF)
        let b = Message.floorRequest.encode(tag: 8, deviceID: 3)
        let c = Message.control(.goto(page: 1000)).encode(tag: 9, deviceID: 3)
        var d = FrameDecoder()
        let frames = try d.decode(a + b + c + Array(c.prefix(5)))
        XCTAssertEqual(frames.map(\.header.tag), [7, 8, 9])
        XCTAssertEqual(frames.map(\.header.deviceID), [0xFF, 3, 3])
        XCTAssertEqual(try Message.decode(frames[2]), .control(.goto(page: 1000)))
        XCTAssertEqual(d.bufferedByteCount, 5)
        XCTAssertNil(try d.next())
    }

    func testDecoderReportsOversizedLengthWithoutWaitingForBody() {
        var d = FrameDecoder()
        d.feed([0x38, 0x01, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF])   // 4 GB frame
        assertThrowsCode(.frameTooLarge) { try d.next() }
        // Stays failed: the connection has to go.
        d.feed(Message.ping(nonce: 1).encode(tag: 1, deviceID: 1))
        assertThrowsCode(.frameTooLarge) { try d.next() }
    }

    func testDecoderReportsShortLength() {
        var d = FrameDecoder()
        d.feed(Message.ok.encode(tag: 1, deviceID: 1))
        d.feed([0x13, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x07])   // length 7 < 8
        XCTAssertEqual(try d.next()?.header.command, 0x13)
        assertThrowsCode(.malformedFrame) { try d.next() }
    }

    func testDecoderHonoursCustomLimit() {
        var d = FrameDecoder(maxFrameLength: 100)
        d.feed(Message.uploadChunk(UploadChunk(content: cid(1), offset: 0, data: Array(repeating: 0, count: 200))).encode(tag: 1, deviceID: 1))
        assertThrowsCode(.frameTooLarge) { try d.next() }
    }

    func testTruncatedStreamYieldsNothing() throws {
        let m = Message.present(content: cid(1), page: 3).encode(tag: 1, deviceID: 2)
        for n in 0..<m.count {
            var d = FrameDecoder()
            XCTAssertNil(try d.decode(m.prefix(n)).first)
        }
    }

    func testRandomBytesThroughDecoderNeverTrap() {
        var rng = SplitMix(seed: 7)
        for _ in 0..<3000 {
            var d = FrameDecoder()
            let bytes = rng.bytes(Int.random(in: 0...64, using: &rng))
            do {
                for f in try d.decode(bytes) { _ = try? Message.decode(f) }
            } catch let e {
                XCTAssertTrue([ErrorCode.malformedFrame, .frameTooLarge].contains(e.code))
                XCTAssertTrue(e.closesConnection)
            }
        }
    }
}
