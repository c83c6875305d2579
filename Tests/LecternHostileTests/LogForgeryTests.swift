import Foundation
import LecternModel
import LecternProtocol
import LecternService
import LecternTestSupport
import XCTest

/// "A failed register's name is logged raw before validation (a newline forges a log
/// line) and throttled attempts are logged one line each (56,820 lines in 5 s)": the real
/// `lecternd`'s output, read as an admin reads the journal.
final class LogForgeryTests: XCTestCase {
    func testANameCannotForgeALineAndGuessesDontFloodTheLog() throws {
        let dir = Fixtures.tempDir("log-forgery")
        try """
        room = "Log Room"
        port = 7420
        http_port = 0
        passcode = "log-presenter"
        moderator_passcode = "log-moderator"
        data_dir = "\(dir)/data"
        [display]
        output = "virtual"
        mode = "640x360@60"
        """.write(toFile: dir + "/lectern.toml", atomically: true, encoding: .utf8)
        chmod(dir + "/lectern.toml", 0o600)
        let daemon = try RunningProcess(try Fixtures.binary("lecternd"), ["--config", dir + "/lectern.toml", "--host", "127.0.0.1", "--port", "0"])
        defer { daemon.kill() }
        let out = try daemon.waitForOutput { $0.contains("listening on port ") }
        let port = Int((out.components(separatedBy: "listening on port ").last ?? "").prefix { $0.isNumber }) ?? 0
        // TLS as shipped: pinned to the certificate the daemon made on its first start.
        let pin = try TestCertificates.fingerprint(ofPEM: TLSIdentity.selfSignedPaths(dataDir: dir + "/data").certificate)

        var key: [UInt8]?   // of the wrong passcode, derived once
        let forged = "2026-11-24T01:00:00+0000 info lecternd: moderator 'Chair' registered as 1 from 10.0.0.1"
        for i in 0..<300 {
            // From 50 addresses: one address's TLS handshakes are budgeted (§2.4.1), and
            // what is checked here is the log, not that budget.
            let s = try RawSocket(port: port, from: "127.0.0.\(2 + i % 50)", tls: pin)
            defer { s.close() }
            var decoder = FrameDecoder()
            var hello: Hello?
            try eventually("hello", timeout: 10) {
                if let bytes = s.receive(timeout: 0.2) { decoder.feed(bytes) }
                while let f = try decoder.next() { if case .hello(let h) = try Message.decode(f, sentBy: .server) { hello = h } }
                return hello != nil
            }
            let name = i == 0 ? "eve\n" + forged : "guess \(i)"
            let p = hello!.presenter!
            key = key ?? PasscodeHash.deriveKey(passcode: "not-it", salt: p.salt, rounds: p.rounds)
            let proof = RegisterProof.compute(key: key!, challenge: hello!.challenge, role: .presenter, name: name, resumeToken: nil)
            s.send(Message.register(RegisterRequest(role: .presenter, proof: proof, resumeToken: nil, name: name)).encode(tag: 1, deviceID: 0xFF))
            _ = s.receive(timeout: 5)
        }
        try eventually("the first guess in the log", timeout: 10) { daemon.text.contains("eve\\u{a}") }
        let lines = daemon.text.split(separator: "\n")
        XCTAssertFalse(lines.contains { $0.hasPrefix(forged) }, "a line forged by a name")
        let guessLines = lines.filter { $0.contains("passcode from 127.0.0.") || $0.contains("throttled") }
        XCTAssertLessThanOrEqual(guessLines.count, 30, "300 guesses, a few lines a minute each kind: \(guessLines.count)")
    }
}
