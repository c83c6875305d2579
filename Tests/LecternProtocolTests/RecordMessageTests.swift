import LecternModel
import LecternProtocol
import XCTest

/// record-request, record-progress and record-data (docs/protocol.md §26).
final class RecordMessageTests: XCTestCase {
    func decode(_ command: Command, _ body: [UInt8]) throws -> Message {
        try Message.decode(header: FrameHeader(command: command.rawValue, deviceID: 1, tag: 1, length: UInt32(8 + body.count)), body: body)
    }

    func testBodiesAreAsDocumented() throws {
        XCTAssertEqual(Command.recordRequest.rawValue, 0xB0)
        XCTAssertEqual(Command.recordProgress.rawValue, 0xB1)
        XCTAssertEqual(Command.recordData.rawValue, 0xB2)
        XCTAssertEqual(Message.recordRequest.encodeBody(), [])
        XCTAssertEqual(Message.recordProgress(RecordProgress(done: 2, total: 300)).encodeBody(), [0, 2, 1, 44])
        XCTAssertEqual(
            Message.recordData(RecordChunk(pages: 9, totalSize: 5, offset: 3, data: [7, 8])).encodeBody(),
            [0, 9, 0, 0, 0, 5, 0, 0, 0, 3, 7, 8])
        XCTAssertEqual(try decode(.recordData, [0, 9, 0, 0, 0, 5, 0, 0, 0, 3, 7, 8]), .recordData(RecordChunk(pages: 9, totalSize: 5, offset: 3, data: [7, 8])))
    }

    func testABadBodyIsRefused() {
        XCTAssertThrowsError(try decode(.recordRequest, [1]), "record-request has no body")
        XCTAssertThrowsError(try decode(.recordProgress, [0, 1, 0]))
        XCTAssertThrowsError(try decode(.recordData, [0, 9, 0, 0, 0, 5, 0, 0, 0, 4, 7, 8]), "past the total size")
    }

    func testSplitCoversThePDFInOrder() {
        let pdf = (0..<25).map { UInt8($0) }
        let pieces = RecordChunk.split(pdf, pages: 3, chunkSize: 10)
        XCTAssertEqual(pieces.map(\.offset), [0, 10, 20])
        XCTAssertEqual(pieces.flatMap(\.data), pdf)
        XCTAssertEqual(pieces.map(\.isLast), [false, false, true])
        XCTAssertTrue(pieces.allSatisfy { $0.pages == 3 && $0.totalSize == 25 })
    }
}
