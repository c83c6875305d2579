import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// One host stuffing polls and questions in an open audience (issue 25 finding 2), over TLS
/// as shipped: 200 fresh registrations in a row get it 40 voices; its votes, questions and
/// up-votes count once each; every state frame the presenters get stays small, the saved
/// state stays bounded, and the room keeps answering.
final class AudienceStuffingTests: XCTestCase {
    func testOneHostCantOutvoteOrOverflowTheRoom() throws {
        let h = try ServiceHarness(floor: .open) { c in
            c.tls = true
            c.audience = .open
            c.maxConnectionsPerAddress = 2048
        }
        let fp = h.service.tlsIdentity!.fingerprint
        let connect = { try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(fp)) }
        let ana = try connect()
        try ana.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass)
        _ = try ana.requestFloor()
        _ = try ana.request(.pollAsk(PollDraft(question: "Which?", kind: .choice, answers: ["Honest", "Stuffed"])))
        let before = Footprint.residentBytes()
        let t0 = Date()
        var voices: [LecternConnection] = [], refused = 0
        for _ in 0..<200 {
            let c = try connect()
            do {
                try c.register(name: "", role: .viewer, key: [UInt8](repeating: 0, count: 32))
                voices.append(c)
            } catch LecternConnection.ClientError.server(let e) where e.code == .slowDown {
                refused += 1
                c.close()
            }
        }
        let registering = Date().timeIntervalSince(t0)
        var firstQuestion: UInt32?
        for (i, v) in voices.enumerated() {
            _ = try v.request(.pollAnswer(poll: 0, .choice(1)))
            _ = try v.request(.questionAsk(text: "Stuffed question \(i) " + String(repeating: "?", count: 250), named: false))
            if firstQuestion == nil { firstQuestion = try ana.waitForState { ($0.audience?.questionCount ?? 0) > 0 }.audience?.questions.first?.id }
            _ = try v.request(.questionVote(id: firstQuestion!))
        }
        let elapsed = Date().timeIntervalSince(t0)
        _ = try ana.waitForState { $0.audience?.poll?.total == voices.count && $0.audience?.questionCount == voices.count }
        // Every vote above was answered ok, so the room has counted it: a state asked for now
        // has them all (a pushed one may be paced ahead of the last up-vote).
        let s = try ana.state()
        let frame = Message.state(s).encode(tag: 0, deviceID: 0).count
        let grown = Footprint.residentBytes() - before
        let saved = (try? FileManager.default.attributesOfItem(atPath: h.dir + "/data/state.json")[.size] as? Int) ?? 0
        print(
            "audience stuffing (one host, \(String(format: "%.1f", elapsed)) s): 200 registrations → \(voices.count) voices (\(refused) told to wait); "
                + "votes \(s.audience?.poll?.counts ?? []), up-votes on one question \(s.audience?.questions.first?.votes ?? 0); "
                + "state frame \(frame) B, state.json \(saved) B, RSS +\(grown >> 20) MiB")
        // 40 at once, then one every 3 s while it kept registering.
        let allowed = AudienceLimits.newViewersPerAddress + Int(registering / AudienceLimits.newViewerSeconds) + 1
        XCTAssertGreaterThanOrEqual(voices.count, AudienceLimits.newViewersPerAddress)
        XCTAssertLessThanOrEqual(voices.count, allowed, "one host: about 40 voices, not 200")
        XCTAssertEqual(s.audience?.poll?.counts, [0, voices.count], "one vote per voice")
        XCTAssertEqual(s.audience?.questions.first?.votes, voices.count, "one up-vote per person")
        XCTAssertLessThan(frame, 64 * 1024, "a state frame stays far under the frame limit")
        XCTAssertLessThan(saved, 256 * 1024)
        XCTAssertLessThan(grown, 64 << 20)
        XCTAssertEqual(try ana.state().room, "Test Room", "the room still answers")
        for v in voices { v.close() }
    }
}
