import Crypto
import Foundation
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// The upload writer on real files: order, hash, failures, close (the back-pressure it
/// feeds is the room's: RoomCoreUploadTests).
final class PartWriterTests: XCTestCase {
    func file(_ name: String = "part") throws -> (path: String, handle: FileHandle) {
        let path = Fixtures.tempDir("part") + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        return (path, try FileHandle(forUpdating: URL(fileURLWithPath: path)))
    }

    func chunks(_ n: Int, size: Int = 1 << 20) -> [[UInt8]] {
        (0..<n).map { i in
            var c = [UInt8](repeating: UInt8(truncatingIfNeeded: i &* 13 &+ 1), count: size)
            for j in stride(from: 0, to: size, by: 4099) { c[j] = UInt8(truncatingIfNeeded: j >> 3) }
            return c
        }
    }

    func finish(_ w: PartWriter) -> Result<ContentID?, Error> {
        let done = DispatchSemaphore(value: 0)
        var result: Result<ContentID?, Error>!
        w.finish {
            result = $0; done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        return result
    }

    func testChunksLandInOrderAndTheHashIsOfTheFile() throws {
        let (path, handle) = try file()
        let w = PartWriter(handle: handle, hashing: true, label: "t")
        let parts = chunks(5)
        let order = NSLock()
        var written: [Int] = []
        for (i, p) in parts.enumerated() { w.append(p) { e in if e == nil { order.withLock { written.append(i) } } } }
        let hex = try XCTUnwrap(try finish(w).get()).hex
        let expected = Data(parts.joined())
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), expected)
        XCTAssertEqual(hex, SHA256.hash(data: expected).map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(written, [0, 1, 2, 3, 4], "each chunk reported once it is in the file, in order")
        XCTAssertEqual(w.queuedBytes, 0)
    }

    func testAResumedWriterDoesNotHash() throws {
        let (_, handle) = try file()
        let w = PartWriter(handle: handle, hashing: false, label: "t")
        w.append([1, 2, 3])
        XCTAssertNil(try finish(w).get())
    }

    /// A connection that goes away keeps what it sent: closing writes what was queued first.
    func testCloseWritesWhatWasQueued() throws {
        let (path, handle) = try file()
        let w = PartWriter(handle: handle, hashing: true, label: "t")
        let parts = chunks(3)
        for p in parts { w.append(p) }
        w.closeAndWait()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data(parts.joined()))
        // Closed: later chunks are dropped and finishing says so.
        var called = false
        w.append([9, 9, 9]) { called = $0 == nil }
        XCTAssertThrowsError(try finish(w).get())
        XCTAssertFalse(called)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)).count, 3 << 20)
    }

    /// A write that fails (here: a read-only handle) is remembered and reported, not lost.
    func testAFailedWriteIsReported() throws {
        let (path, _) = try file()
        let readOnly = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        let w = PartWriter(handle: readOnly, hashing: true, label: "t")
        var called = false
        w.append([1, 2, 3]) { called = $0 == nil }
        w.waitForQueued()
        XCTAssertNotNil(w.failure)
        XCTAssertFalse(called, "a chunk that failed is not reported as stored")
        XCTAssertThrowsError(try finish(w).get())
    }
}
