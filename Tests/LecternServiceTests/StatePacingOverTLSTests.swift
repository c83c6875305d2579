import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// State pushes are coalesced per client (issue 25 finding 6, §14.1), over real sockets
/// with TLS on: one drawer at 50 strokes a second costs each viewer at most 10 pushes a
/// second, the newest state arrives, and a page turn still reaches a presenter promptly.
final class StatePacingOverTLSTests: XCTestCase {
    func connect(_ h: ServiceHarness) throws -> LecternConnection {
        try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(h.service.tlsIdentity!.fingerprint))
    }

    func testOneDrawerAtFiftyStrokesASecondCostsEachViewerAtMostTenPushesASecond() throws {
        let h = try ServiceHarness(floor: .open) { c in
            c.tls = true
            c.audience = .open
        }
        let ana = try connect(h)
        try ana.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass)
        let mod = try connect(h)
        try mod.register(name: "Mod", role: .moderator, passcode: ServiceHarness.moderatorPass)
        _ = try ana.requestFloor()
        let pdf = try Fixtures.numberedDeck(count: 4, in: Fixtures.tempDir("pacing"))
        try ana.present(try ana.upload(path: pdf).content, page: 1)
        let viewers = try (0..<3).map { _ in
            let v = try connect(h)
            try v.register(name: "", role: .viewer, key: [UInt8](repeating: 0, count: 32))
            return v
        }
        _ = try viewers[2].waitForState { $0.screen.page == 1 }
        for v in viewers { _ = v.takeStatePushes() }
        _ = ana.takeStatePushes()

        // The moderator draws 100 strokes at 50 a second (2 s).
        let start = Date()
        var turnDelays: [Double] = []
        for i in 0..<100 {
            let due = start.addingTimeInterval(Double(i) * 0.02)
            if due > Date() { Thread.sleep(until: due) }   // the attacker's pace, not a wait for the service
            _ = try mod.draw([InkPoint(px: 0.1 + Double(i % 80) / 100, py: 0.5), InkPoint(px: 0.2, py: 0.6)])
            if i == 50 {
                // A page turn in the middle of it: the presenter's own push is not held for the window.
                let t0 = Date()
                try ana.control(.next)
                _ = try ana.waitForState(timeout: 5) { $0.screen.page == 2 }
                turnDelays.append(Date().timeIntervalSince(t0))
            }
        }
        let seconds = Date().timeIntervalSince(start)
        // Every viewer ends with the newest state (100 strokes, page 2 shown now); its pushes are counted.
        for (i, v) in viewers.enumerated() {
            var pushes = v.takeStatePushes().count
            try eventually("viewer \(i) has the newest state", timeout: 5, interval: 0.02) {
                pushes += v.takeStatePushes().count
                return v.latestState?.screen.page == 2 && v.latestState?.ink?.strokes == 100
            }
            let perSecond = Double(pushes) / seconds
            print("viewer \(i): \(pushes) state pushes in \(String(format: "%.2f", seconds)) s (\(String(format: "%.1f", perSecond)) a second) for 100 strokes")
            XCTAssertLessThanOrEqual(perSecond, 10 + 2 / seconds, "viewer \(i) got \(pushes) pushes: not coalesced")
            XCTAssertGreaterThanOrEqual(pushes, 5, "the viewer still follows the drawing")
        }
        print("page turn during the flood: the presenter had the new page's state after \(Int(turnDelays[0] * 1000)) ms")
        XCTAssertLessThan(turnDelays[0], 1.0)
        XCTAssertEqual(try ana.state().screen.page, 2, "the presenter is still answered")
    }
}
