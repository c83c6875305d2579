import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRoom
import LecternService
import LecternTestSupport
import XCTest

/// What survives a restart of a real `lecternd` (TLS on, as shipped), issue 25: what was
/// acknowledged survives a kill -9 right after the ok (finding 9: 9 of 10 strokes and 5
/// of 5 poll answers were lost), and a damaged `state.json` — cut short, garbage, empty,
/// one part of the wrong type — is kept aside, the parts that parse restored, each part
/// lost logged (finding 8: everything was lost silently); temp files of killed runs go.
final class SavedStateRestartTests: XCTestCase {
    typealias Setup = ApplianceServiceTests.Setup
    static let pass = "restart-presenter-pass"

    /// The certificate lecternd made itself, read from its data directory: the pin.
    func pin(_ s: Setup) throws -> ClientTLS {
        let pem = try String(contentsOfFile: TLSIdentity.selfSignedPaths(dataDir: s.dir + "/data").certificate, encoding: .utf8)
        let body = pem.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") && !$0.isEmpty }.joined()
        let der = try XCTUnwrap(Data(base64Encoded: body))
        return .pinned(CertificateFingerprint(der: [UInt8](der)))
    }

    func presenter(_ s: Setup, port: Int, token: ResumeToken? = nil) throws -> LecternConnection {
        let c = try LecternConnection(host: "127.0.0.1", port: port, tls: try pin(s))
        try c.register(name: "Ann", role: .presenter, passcode: Self.pass, resumeToken: token)
        return c
    }

    func kill9(_ p: RunningProcess) {
        p.kill(SIGKILL)
        XCTAssertEqual(p.waitForExit(), SIGKILL)
    }

    /// Ten strokes, each followed at once by kill -9 after its stroke-ok, and five poll
    /// answers the same way: after each restart, everything acknowledged is there.
    func testWhatWasAcknowledgedSurvivesKill9RightAfterTheOk() throws {
        let s = Setup()
        try s.writeConfig(passcode: Self.pass, room: "Durable Room")
        var (p, port) = try s.start()
        var a = try presenter(s, port: port)
        let token = try XCTUnwrap(a.registration?.resumeToken)
        _ = try a.requestFloor()
        let content = try a.upload(path: try Fixtures.numberedDeck(count: 3, in: s.dir)).content
        try a.present(content)
        for i in 0..<10 {
            try a.draw([InkPoint(px: 0.1, py: 0.1 + Double(i) * 0.05), InkPoint(px: 0.9, py: 0.1 + Double(i) * 0.05)])
            kill9(p)
            (p, port) = try s.start()
            a = try presenter(s, port: port, token: token)
            XCTAssertEqual(try a.inkStrokes(content: content, page: 1).count, i + 1, "strokes acknowledged before kill -9 number \(i + 1)")
        }
        _ = try a.request(.pollAsk(PollDraft(question: "Which?", kind: .choice, answers: ["A", "B"], correct: nil)))
        for i in 0..<5 {
            let v = try LecternConnection(host: "127.0.0.1", port: port, tls: try pin(s))
            try v.register(name: "", role: .viewer, passcode: Self.pass)
            let poll = try v.waitForState { $0.audience?.poll != nil }.audience!.poll!
            _ = try v.request(.pollAnswer(poll: poll.id, .choice(i % 2)))
            kill9(p)
            (p, port) = try s.start()
            a = try presenter(s, port: port, token: token)
            XCTAssertEqual(try a.state().audience?.poll?.total, i + 1, "answers acknowledged before kill -9 number \(i + 1)")
        }
        p.kill(SIGTERM)
        _ = p.waitForExit()
    }

    /// A service with a page, ink, a timer and whiteboards saved; stopped.
    func savedRoom() throws -> (Setup, String) {
        let s = Setup()
        try s.writeConfig(passcode: Self.pass, room: "Damaged Room")
        let (p, port) = try s.start()
        let a = try presenter(s, port: port)
        _ = try a.requestFloor()
        let content = try a.upload(path: try Fixtures.numberedDeck(count: 3, in: s.dir)).content
        try a.present(content, page: 2)
        try a.draw([InkPoint(px: 0.2, py: 0.2), InkPoint(px: 0.8, py: 0.8)])
        _ = try a.request(.timer(TimerCommand(action: .set, mode: .countdown, value: 600_000)))
        p.kill(SIGTERM)
        _ = p.waitForExit()
        let state = s.dir + "/data/state.json"
        let saved = try XCTUnwrap(SavedStateFile.read(try Data(contentsOf: URL(fileURLWithPath: state))).state)
        XCTAssertEqual(saved.page, 2)
        XCTAssertNotNil(saved.timer)
        return (s, state)
    }

    func damagedCopies(_ s: Setup) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: s.dir + "/data").filter { $0.hasPrefix("state.json.damaged-") }
    }

    func testADamagedStateFileIsKeptAsideAndWhatParsesIsRestored() throws {
        let (s, state) = try savedRoom()
        let whole = try Data(contentsOf: URL(fileURLWithPath: state))
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: whole) as? [String: Any])
        object["timer"] = "ten minutes"
        let wrongTimer = try JSONSerialization.data(withJSONObject: object)
        let cases: [(name: String, bytes: Data, pageBack: Bool, logged: String)] = [
            ("one part of the wrong type", wrongTimer, true, "saved state lost: timer:"),
            ("cut short", whole.prefix(whole.count / 2), false, "saved state lost: file: the file ends at byte"),
            ("garbage", Data("\u{7}garbage\u{0}".utf8), false, "saved state lost: file: not a JSON object"),
            ("empty", Data(), false, "saved state lost: file: the file is empty"),
        ]
        for (n, c) in cases.enumerated() {
            try c.bytes.write(to: URL(fileURLWithPath: state))
            // A temp file a killed run left behind.
            try Data("{".utf8).write(to: URL(fileURLWithPath: state + ".tmp-99999\(n)"))
            let (p, port) = try s.start()
            let log = try p.waitForOutput { $0.contains("saved state lost") }
            XCTAssertTrue(log.contains(c.logged), "\(c.name): \(log)")
            XCTAssertTrue(log.contains("is damaged (kept as \(state).damaged-"), "\(c.name): \(log)")
            XCTAssertEqual(try damagedCopies(s).count, n + 1, c.name)
            let kept = try damagedCopies(s).sorted().map { try Data(contentsOf: URL(fileURLWithPath: s.dir + "/data/" + $0)) }
            XCTAssertTrue(kept.contains(c.bytes), "\(c.name): the damaged file is kept as it was")
            XCTAssertFalse(FileManager.default.fileExists(atPath: state + ".tmp-99999\(n)"), "\(c.name): the temp file is gone")
            let a = try presenter(s, port: port)
            let snap = try a.state()
            if c.pageBack {
                XCTAssertEqual(snap.screen.page, 2, "\(c.name): the page came back")
                XCTAssertEqual(try a.inkStrokes(content: snap.screen.content!.id, page: 2).count, 1, "\(c.name): the ink came back")
                XCTAssertEqual(snap.console?.timer.mode, .elapsed, "\(c.name): the timer, of the wrong type, was not")
            }
            p.kill(SIGTERM)
            _ = p.waitForExit()
            // The next start reads the file this one wrote: nothing damaged.
            let again = SavedStateFile.read(try Data(contentsOf: URL(fileURLWithPath: state)))
            XCTAssertFalse(again.damaged, "\(c.name): \(again.lost)")
            if c.pageBack { try whole.write(to: URL(fileURLWithPath: state)) }
        }
    }
}
