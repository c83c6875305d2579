import Crypto
import Foundation
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest
import Synchronization

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
        let result = Mutex<Result<ContentID?, Error>?>(nil)
        w.finish {
            let r = $0
            result.withLock { $0 = r }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        return result.withLock { $0 } ?? .failure(CocoaError(.fileWriteUnknown))
    }

    func testChunksLandInOrderAndTheHashIsOfTheFile() throws {
        let (path, handle) = try file()
        let w = PartWriter(handle: handle, hashing: true, label: "t")
        let parts = chunks(5)
        let written = Mutex<[Int]>([])
        for (i, p) in parts.enumerated() { w.append(p) { e in if e == nil { written.withLock { $0.append(i) } } } }
        let hex = try XCTUnwrap(try finish(w).get()).hex
        let expected = Data(parts.joined())
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), expected)
        XCTAssertEqual(hex, SHA256.hash(data: expected).map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(written.withLock { $0 }, [0, 1, 2, 3, 4], "each chunk reported once it is in the file, in order")
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
        let called = Mutex(false)
        w.append([9, 9, 9]) { e in called.withLock { $0 = e == nil } }
        XCTAssertThrowsError(try finish(w).get())
        XCTAssertFalse(called.withLock { $0 })
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)).count, 3 << 20)
    }

    /// A write that fails (here: a read-only handle) is remembered and reported, not lost.
    func testAFailedWriteIsReported() throws {
        let (path, _) = try file()
        let readOnly = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        let w = PartWriter(handle: readOnly, hashing: true, label: "t")
        let called = Mutex(false)
        w.append([1, 2, 3]) { e in called.withLock { $0 = e == nil } }
        w.waitForQueued()
        XCTAssertNotNil(w.failure)
        XCTAssertFalse(called.withLock { $0 }, "a chunk that failed is not reported as stored")
        XCTAssertThrowsError(try finish(w).get())
    }
}
