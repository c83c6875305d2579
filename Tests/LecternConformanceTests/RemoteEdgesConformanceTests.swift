import Foundation
import LecternTestSupport
import XCTest

/// §19's rules from the web remote's rough edges (issue 27): the moderator's seat. Frames
/// written byte by byte from docs/protocol.md.
final class RemoteEdgesConformanceTests: ConformanceTestCase {
    /// C90: with `max_clients` = 2 and two presenters in the room, a third presenter is
    /// refused `roomFull` (detail 2) and stays connected; a moderator still gets in (the
    /// place kept beyond the presenters, id 3) and can remove someone; a second moderator is
    /// refused `roomFull` (detail 3).
    func testC90AModeratorAlwaysHasASeat() throws {
        try start(.moderated) { $0.maxClients = 2 }
        let a = try join("Ana"), b = try join("Ben")
        XCTAssertEqual([a.device, b.device], [1, 2])

        let third = try connect()
        third.request(0x01, registerBody(third, name: "Cem"))
        let full = expectFailure(third.next(), in: 0x03, code: 0x0103)
        XCTAssertEqual(full?.detail, 2)
        XCTAssertEqual(full?.message, "The room is full (2 devices).")
        XCTAssertEqual(full?.closes, false)
        XCTAssertFalse(third.isClosed(timeout: 0.2), "a refused register leaves the connection open")

        let chair = try join("Chair", role: 2)
        XCTAssertEqual(chair.device, 3, "the place kept for a moderator")
        let second = try connect()
        second.request(0x01, registerBody(second, name: "Deputy", role: 2))
        XCTAssertEqual(expectFailure(second.next(), in: 0x03, code: 0x0103)?.detail, 3)

        // The moderator removes Ben (floor-moderate kick); Cem's connection may now register.
        chair.request(0x0B, [4, b.device])
        XCTAssertEqual(chair.reply()?.command, 0x13, "ok")
        XCTAssertTrue(b.isClosed())
        let t = third.request(0x01, registerBody(third, name: "Cem"))
        let ok = try XCTUnwrap(third.next())
        XCTAssertEqual(ok.command, 0x02, "register-ok: \(String(describing: ok.error))")
        XCTAssertEqual(ok.tag, t)
        XCTAssertEqual(ok.body[0], 2, "Ben's freed id")
    }
}
