import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternService
import LecternTestSupport
import XCTest

/// A drawer who floods ink: thousands of strokes and pointer moves as fast as the socket
/// takes them. The room keeps at most its limits (200,000 points), says so with
/// `roomInkFull`/`pageInkFull`, the service stays small and the others are still answered.
final class InkFloodTests: XCTestCase {
    func testAFloodOfInkIsBoundedAndTheRoomStaysResponsive() throws {
        let h = try ServiceHarness(floor: .moderated) { $0.pageCacheMB = 16 }   // the pages' frames aside
        let mod = try h.moderator("Flood")
        let other = try h.presenter("Other")
        let pdf = try Fixtures.pdf(Array(repeating: Fixtures.quadrantPage(width: 800, height: 600), count: 8), in: h.dir)
        let stored = try mod.upload(path: pdf)
        // Memory in use, not what the heap keeps free (the full suite fragments this process's
        // heap; the service trims its own, Memory.giveBack): trimmed before each reading.
        func inUse() -> Int {
            Memory.giveBack()
            return Footprint.residentBytes()
        }
        // The baseline has a page on the wall (its frames, the display's buffers, the render
        // threads' heaps): what grows from here is the flood's.
        try mod.present(stored.content, page: 1)
        let before = inUse()
        var peak = before
        var refused: Set<ErrorCode> = []
        for page in 1...6 {
            try mod.present(stored.content, page: UInt32(page))
            // 120 strokes of 1000 points a page: past the page's 50,000 points and, over the
            // pages, past the room's 200,000.
            for s in 0..<120 {
                let pts = (0..<1000).map { InkPoint(x: UInt16($0 * 65), y: UInt16((s * 500 + $0) % 65_535)) }
                for _ in 0..<3 { mod.point(x: Double(s % 10) / 10, y: 0.5) }
                do { try mod.draw(pts) } catch LecternConnection.ClientError.server(let e) { refused.insert(e.code) }
            }
            peak = max(peak, inUse())
            XCTAssertEqual(try other.state().room, "Test Room", "the room stopped answering")
        }
        let s = try mod.state()
        let ink = try XCTUnwrap(s.ink)
        XCTAssertLessThanOrEqual(ink.points, 200_000)
        XCTAssertGreaterThanOrEqual(ink.points, 190_000, "the room took what its limits allow")
        XCTAssertTrue(ink.pages.allSatisfy { $0.strokes <= 500 })
        XCTAssertEqual(refused, [.pageInkFull, .roomInkFull])
        let growth = peak - before
        print("ink flood: \(ink.points) points kept, service grew by \(growth >> 20) MiB at most")
        XCTAssertLessThan(growth, 80 << 20, "resident memory grew by \(growth >> 20) MiB")
        // Clearing makes room again.
        try mod.inkClear(deck: true)
        XCTAssertEqual(try mod.state().ink?.points, 0)
        XCTAssertNoThrow(try mod.draw([InkPoint(px: 0.1, py: 0.1), InkPoint(px: 0.9, py: 0.9)]))
    }
}
