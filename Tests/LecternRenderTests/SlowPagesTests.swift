import Foundation
import LecternPipeline
import LecternTestSupport
import XCTest

/// The slow/poison page list: kept across restarts in an owner-only file, bounded, and a
/// damaged file is read for what it holds, never trusted.
final class SlowPagesTests: XCTestCase {
    let a = String(repeating: "a", count: 64), b = String(repeating: "b", count: 64)

    func testTheListIsReadBackOwnerOnly() throws {
        let file = Fixtures.tempDir("slow") + "/slow-pages"
        umask(0o022)
        let list = SlowPages(file: file)
        list.insert(content: a, page: 3)
        list.insert(content: b, page: 1, reason: .memory(megabytes: 256))
        list.insert(content: a, page: 3)
        let again = SlowPages(file: file)
        XCTAssertTrue(again.contains(content: a, page: 3))
        XCTAssertTrue(again.contains(content: b, page: 1))
        XCTAssertFalse(again.contains(content: a, page: 1))
        XCTAssertEqual(again.reason(content: a, page: 3), .slow)
        XCTAssertEqual(again.reason(content: b, page: 1), .memory(megabytes: 256))
        XCTAssertEqual(again.all.count, 2)
        let mode = (try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o600)
    }

    func testTheOldestGoBeyondTheCapacity() {
        let file = Fixtures.tempDir("slow") + "/slow-pages"
        let list = SlowPages(file: file, capacity: 3)
        for p in 1...5 { list.insert(content: a, page: p) }
        let again = SlowPages(file: file, capacity: 3)
        XCTAssertEqual(again.all.map(\.page), [3, 4, 5])
    }

    func testAGarbledFileGivesWhatItHolds() throws {
        let file = Fixtures.tempDir("slow") + "/slow-pages"
        try "\(a) 2\nnonsense\n\(b) -1\n../../etc 3\n\(b.uppercased()) 4\n\(b) 7 extra\n\(b) 8 0\n\(b) 5\n\(a) 9 300\n".write(toFile: file, atomically: true, encoding: .utf8)
        let list = SlowPages(file: file)
        XCTAssertEqual(list.all, [SlowPages.Page(content: a, page: 2), SlowPages.Page(content: b, page: 5), SlowPages.Page(content: a, page: 9)])
        XCTAssertEqual(list.reason(content: a, page: 9), .memory(megabytes: 300))
    }
}
