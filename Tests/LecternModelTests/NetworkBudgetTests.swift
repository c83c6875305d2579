import XCTest

@testable import LecternModel

/// The pure cores of issue 25's network items: the download pieces' places, the TLS
/// handshake budget, the metrics endpoint's places, the plain redirect's host, and a long
/// response's stall clock.
final class NetworkBudgetTests: XCTestCase {
    func testChunkBudgetGivesPlacesInTurn() {
        var b = ChunkBudget(places: 2)
        XCTAssertTrue(b.ask(1))
        XCTAssertTrue(b.ask(2))
        XCTAssertFalse(b.ask(3))
        XCTAssertFalse(b.ask(4))
        XCTAssertFalse(b.ask(3), "asking again doesn't queue twice")
        XCTAssertEqual(b.waitingCount, 2)
        XCTAssertEqual(b.release(), 3, "first come, first served")
        b.leave(4)
        XCTAssertNil(b.release())
        XCTAssertEqual(b.held, 1)
        XCTAssertTrue(b.ask(5))
        XCTAssertFalse(b.ask(6), "all places held again")
    }

    func testHandshakeBudgetIsABurstThenARatePerAddress() {
        var b = HandshakeBudget(limits: .forConnections(perAddress: 4))   // 8 at once, 2 a second
        let allowed = (0..<10).filter { _ in b.allow(address: "192.0.2.1", now: 100) }.count
        XCTAssertEqual(allowed, 8)
        XCTAssertTrue(b.allow(address: "192.0.2.2", now: 100), "another address has its own")
        XCTAssertFalse(b.allow(address: "192.0.2.1", now: 100.4))
        XCTAssertTrue(b.allow(address: "192.0.2.1", now: 100.5), "half a second: one more")
        XCTAssertFalse(b.allow(address: "192.0.2.1", now: 100.5))
        XCTAssertEqual((0..<20).filter { _ in b.allow(address: "192.0.2.1", now: 1000) }.count, 8, "full again, never more than the burst")
        // IPv6 counts per /64.
        XCTAssertEqual(HandshakeBudget.key("2001:db8:1:2:aaaa::1"), HandshakeBudget.key("2001:db8:1:2:bbbb::9"))
        XCTAssertNotEqual(HandshakeBudget.key("2001:db8:1:2::1"), HandshakeBudget.key("2001:db8:1:3::1"))
        XCTAssertEqual(HandshakeBudget.key("2001:db8::1"), "2001:db8:0:0::/64")
        // The table is bounded.
        var small = HandshakeBudget(limits: .init(burst: 2, perSecond: 1, addresses: 3))
        for i in 0..<10 { _ = small.allow(address: "10.0.0.\(i)", now: Double(i) * 0.01) }
        XCTAssertLessThanOrEqual(small.count, 3)
    }

    func testScrapeGateMakesWayForNewcomersOverSlowPeers() {
        var g = ScrapeGate(limits: .init(connections: 2, headTimeout: 2, exchangeTimeout: 10))
        XCTAssertEqual(g.arrive(1, now: 0), .admit(evicting: nil))
        XCTAssertEqual(g.arrive(2, now: 1), .admit(evicting: nil))
        XCTAssertEqual(g.arrive(3, now: 1.5), .admit(evicting: 1), "the oldest without a head makes way")
        g.headReceived(2)
        g.headReceived(3)
        XCTAssertEqual(g.arrive(4, now: 2), .refuse, "both being answered")
        XCTAssertFalse(g.expired(2, now: 5))
        XCTAssertTrue(g.expired(2, now: 11))
        g.closed(2)
        XCTAssertEqual(g.arrive(5, now: 12), .admit(evicting: nil))
        XCTAssertFalse(g.expired(5, now: 13.9))
        XCTAssertTrue(g.expired(5, now: 14), "no head within 2 s")
    }

    func testThePlainRedirectGoesOnlyToThisAppliance() {
        func head(_ host: String) -> [UInt8] { Array("GET /a?b HTTP/1.1\r\nHost: \(host)\r\n\r\n".utf8) }
        let me = PlainHTTPAnswer.Appliance(arrivedOn: "192.0.2.7:8080", names: ["192.0.2.7", "lectern", "lectern.local", "Board-Room"])
        let cases: [(String, String)] = [
            ("192.0.2.7:8080", "https://192.0.2.7:8080/a?b"),
            ("lectern.local:8443", "https://lectern.local:8443/a?b"),
            ("board-room", "https://board-room/a?b"),
            ("evil.example", "https://192.0.2.7:8080/a?b"),
            ("evil.example:8080", "https://192.0.2.7:8080/a?b"),
            ("192.0.2.8:8080", "https://192.0.2.7:8080/a?b"),
            ("[2001:db8::1]:8080", "https://192.0.2.7:8080/a?b"),
        ]
        for (host, want) in cases {
            XCTAssertEqual(PlainHTTPAnswer.answer(head: head(host), allowPlain: false, appliance: me), .redirect(want), host)
        }
        let v6 = PlainHTTPAnswer.Appliance(arrivedOn: "[2001:db8::7]:8080", names: ["2001:db8::7"])
        XCTAssertEqual(PlainHTTPAnswer.answer(head: head("[2001:DB8::7]:8080"), allowPlain: false, appliance: v6), .redirect("https://[2001:DB8::7]:8080/a?b"))
        XCTAssertEqual(PlainHTTPAnswer.answer(head: head("x.example"), allowPlain: false, appliance: v6), .redirect("https://[2001:db8::7]:8080/a?b"))
    }

    func testALongResponseStallsOnlyWhenThePeerTakesNothing() {
        var p = HTTPConnectionPolicy(now: 0, stallTimeout: 5)
        p.headReceived(now: 0)
        p.responseStarted(now: 0)
        for t in stride(from: 1.0, through: 30, by: 1) {
            p.responseProgressed(now: t)
            XCTAssertEqual(p.poll(now: t + 0.5), .none, "taking pieces at \(t) s")
        }
        XCTAssertEqual(p.poll(now: 34.9), .none)
        XCTAssertEqual(p.poll(now: 35), .closeStalled, "5 s without a piece taken")
    }
}
