import Glibc
import LecternTestSupport
import XCTest

/// A page of another site, open in a room member's browser, opening the web remote's
/// WebSocket and guessing passcodes through it: no upgrade for another site's origin.
final class CrossOriginUpgradeTests: XCTestCase {
    func upgrade(_ h: ServiceHarness, origin: String?) throws -> Int {
        let port = try XCTUnwrap(h.service.httpPort)
        let fd = try h.raw(port: port)
        defer { fd.close() }
        fd.sendNow(Hostile.upgradeRequest(port: port, origin: origin))
        return Hostile.status(fd.read(timeout: 5) { Hostile.headEnd($0) != nil })
    }

    func testAnotherSitesPageGetsNoWebSocket() throws {
        let h = try ServiceHarness(webRemote: true)
        let port = try XCTUnwrap(h.service.httpPort)
        XCTAssertEqual(try upgrade(h, origin: "http://evil.example"), 403)
        XCTAssertEqual(try upgrade(h, origin: "http://evil.example:\(port)"), 403)
        XCTAssertEqual(try upgrade(h, origin: "null"), 403)
        // The page's own origin, and clients that are not browsers (no Origin), still upgrade.
        XCTAssertEqual(try upgrade(h, origin: "\(h.scheme)://127.0.0.1:\(port)"), 101)
        XCTAssertEqual(try upgrade(h, origin: nil), 101)
    }
}
