import XCTest

@testable import LecternService

/// Which writes of ciphertext are copied into a buffer of their own size.
final class CiphertextCompactorTests: XCTestCase {
    func testSmallWritesInLargeBuffersAreCopied() {
        let table: [(readable: Int, capacity: Int, copied: Bool)] = [
            (534, 16384, true),   // a few replies, in NIOSSL's 16 KiB buffer
            (534, 1 << 20, true),   // after a large write grew it
            (8192, 16384, false),   // half of it: kept
            (16000, 16384, false),   // a whole record
            (100, 4096, false),   // a page at most: not worth a copy
            (0, 16384, true),
        ]
        for row in table {
            XCTAssertEqual(
                CiphertextCompactor.compacts(readable: row.readable, capacity: row.capacity), row.copied,
                "\(row.readable) bytes in \(row.capacity)")
        }
    }
}
