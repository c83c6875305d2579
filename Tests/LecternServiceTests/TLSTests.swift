import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// TLS on both ports (issue 19 must 2, docs/protocol.md §25.5): a real service with
/// `tls = true`, real sockets, the real `lectern` CLI and openssl as the outside check.
final class TLSTests: XCTestCase {
    func tlsRoom(allowPlain: Bool = false, webRemote: Bool = false, tweak: (inout Config) -> Void = { _ in }) throws -> ServiceHarness {
        // Each room makes its own certificate here: some of these tests are about that.
        try ServiceHarness(floor: .open, webRemote: webRemote, freshCertificate: true) { c in
            c.tls = true
            c.allowPlain = allowPlain
            tweak(&c)
        }
    }

    /// Runs the CLI with its own known-rooms file.
    func lectern(_ h: ServiceHarness, _ args: [String], known: String, port: Int? = nil) throws -> (out: String, err: String, status: Int32) {
        let env = [
            "LECTERN_PASSCODE=\(ServiceHarness.presenterPass)", "LECTERN_KNOWN_ROOMS=\(known)", "LECTERN_SESSION_FILE=\(h.dir)/session-\(UUID().uuidString)",
            "PATH=/usr/bin:/bin",
        ]
        let r = try Fixtures.run("env", env + [try Fixtures.binary("lectern")] + args + ["--port", "\(port ?? h.port)", "--name", "tls-cli"])
        return (String(decoding: r.out, as: UTF8.self), r.err, r.status)
    }

    /// First start: a key (0600) and a self-signed certificate in data_dir/tls, whose
    /// SHA-256 openssl computes as the service does; a restart keeps them.
    func testTheServiceMakesAndKeepsASelfSignedCertificate() throws {
        let h = try tlsRoom()
        let paths = TLSIdentity.selfSignedPaths(dataDir: h.dir + "/data")
        let identity = try XCTUnwrap(h.service.tlsIdentity)
        XCTAssertTrue(identity.selfSigned)
        var st = stat()
        XCTAssertEqual(stat(paths.key, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600, "the key is readable by the service alone")
        XCTAssertEqual(try TestCertificates.opensslFingerprint(paths.certificate), identity.fingerprint.hex)
        try h.restart()
        XCTAssertEqual(h.service.tlsIdentity?.fingerprint, identity.fingerprint, "the same certificate after a restart")
    }

    /// The CLI over TLS: pinned on first use (the known-rooms file holds openssl's
    /// fingerprint), used silently after; a changed certificate refused with what to do;
    /// `--fingerprint` of the new one accepted and remembered; a wrong one refused.
    func testTheCLIPinsOnFirstUseAndRefusesAChangedCertificate() throws {
        let h = try tlsRoom()
        let known = h.dir + "/known-rooms"
        let port = h.port
        let first = try lectern(h, ["status"], known: known)
        XCTAssertEqual(first.status, 0, first.err)
        let fp = try TestCertificates.opensslFingerprint(TLSIdentity.selfSignedPaths(dataDir: h.dir + "/data").certificate)
        XCTAssertTrue(first.err.contains("first connection"), first.err)
        XCTAssertTrue(first.err.contains(String(fp.prefix(4)).uppercased()), "the short fingerprint is printed: \(first.err)")
        XCTAssertEqual(try String(contentsOfFile: known, encoding: .utf8).contains("127.0.0.1:\(port) \(fp)"), true)
        let again = try lectern(h, ["status"], known: known)
        XCTAssertEqual(again.status, 0, again.err)
        XCTAssertFalse(again.err.contains("first connection"), again.err)

        // The admin's data directory lost its certificate: a new one, on the same port.
        try FileManager.default.removeItem(atPath: h.dir + "/data/tls")
        try h.restart { $0.port = port }
        XCTAssertEqual(h.port, port)
        let newFP = try XCTUnwrap(h.service.tlsIdentity?.fingerprint)
        XCTAssertNotEqual(newFP.hex, fp)
        let refused = try lectern(h, ["status"], known: known)
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.err.contains("different TLS certificate"), refused.err)
        XCTAssertTrue(refused.err.contains("--fingerprint"), "it says what to do: \(refused.err)")
        XCTAssertTrue(refused.err.contains(newFP.short), refused.err)
        XCTAssertTrue(try String(contentsOfFile: known, encoding: .utf8).contains(fp), "the old pin stays until told otherwise")

        // A wrong --fingerprint is refused too, and pins nothing.
        let wrong = try lectern(h, ["status", "--fingerprint", "00112233 44556677"], known: known)
        XCTAssertNotEqual(wrong.status, 0)
        XCTAssertTrue(wrong.err.contains("not the one given with --fingerprint"), wrong.err)

        // The short form from the wall, as printed there (spaces), is enough.
        let given = try lectern(h, ["status", "--fingerprint", newFP.short], known: known)
        XCTAssertEqual(given.status, 0, given.err)
        XCTAssertTrue(try String(contentsOfFile: known, encoding: .utf8).contains("127.0.0.1:\(port) \(newFP.hex)"))
        XCTAssertEqual(try lectern(h, ["status"], known: known).status, 0, "the new certificate is remembered")
    }

    /// `--fingerprint` on the first use: a wrong one refused before anything is sent.
    func testAWrongFingerprintIsRefusedOnFirstUse() throws {
        let h = try tlsRoom()
        let known = h.dir + "/known-rooms"
        let fp = try XCTUnwrap(h.service.tlsIdentity?.fingerprint)
        var digits = Array(fp.hex.prefix(16))
        digits[0] = digits[0] == "0" ? "1" : "0"
        let r = try lectern(h, ["status", "--fingerprint", String(digits)], known: known)
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.err.contains("refused"), r.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: known), "nothing pinned")
        XCTAssertEqual(h.service.connectionCounts.registered, 0)
        let bad = try lectern(h, ["status", "--fingerprint", "xyz"], known: known)
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.err.contains("--fingerprint takes"), bad.err)
    }

    /// A client outside the project checks the fingerprint as protocol.md §25.5 says, with
    /// openssl against the protocol port and the web remote's: the same SHA-256 as the wall's.
    func testOpensslSeesTheFingerprintTheWallShows() throws {
        let h = try tlsRoom(webRemote: true)
        try eventually("the web remote listens") { h.service.httpPort != nil }
        let identity = try XCTUnwrap(h.service.tlsIdentity)
        for port in [h.port, h.service.httpPort!] {
            let r = try Fixtures.run(
                "bash", ["-c", "openssl s_client -connect 127.0.0.1:\(port) </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256"])
            let text = String(decoding: r.out, as: UTF8.self)
            XCTAssertEqual(r.status, 0, r.err)
            let hex = text.split(separator: "=").last.map { $0.filter(\.isHexDigit).lowercased() } ?? ""
            XCTAssertEqual(hex, identity.fingerprint.hex, "port \(port): \(text)")
            XCTAssertTrue(hex.uppercased().hasPrefix(identity.fingerprint.short.replacingOccurrences(of: " ", with: "")), "the wall's short form is its start")
        }
    }

    /// The client library over TLS: pinned to the certificate, registers and drives;
    /// another pin is refused with the fingerprint it saw.
    func testTheClientLibraryOverTLS() throws {
        let h = try tlsRoom()
        let fp = try XCTUnwrap(h.service.tlsIdentity?.fingerprint)
        let c = try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(fp))
        XCTAssertEqual(c.certificate, fp)
        try c.register(name: "over-tls", role: .presenter, passcode: ServiceHarness.presenterPass)
        XCTAssertEqual(try c.state().devices.map(\.name), ["over-tls"])
        let other = try XCTUnwrap(CertificateFingerprint(bytes: [UInt8](repeating: 7, count: 32)))
        XCTAssertThrowsError(try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(other))) { e in
            XCTAssertEqual(e as? LecternConnection.ClientError, .certificateRefused(fp))
        }
    }

    /// Plain on the protocol port when only TLS is allowed: the client that waits for
    /// hello gets `tlsRequired` (0x0E01) and the close; one that sends bytes first too.
    func testAPlainProtocolClientIsRefusedWhenPlainIsNotAllowed() throws {
        let h = try tlsRoom()
        XCTAssertThrowsError(try LecternConnection(host: "127.0.0.1", port: h.port)) { e in
            XCTAssertEqual((e as? LecternConnection.ClientError)?.lecternError?.code, .tlsRequired, "\(e)")
        }
        let raw = try RawSocket(port: h.port)
        _ = raw.send(Message.ping(nonce: 7).encode(tag: 1, deviceID: 0xFF))
        let got = raw.read(timeout: 5) { $0.count >= 10 }
        XCTAssertGreaterThanOrEqual(got.count, 10, "\(got)")
        if got.count >= 10 {
            XCTAssertEqual(got[0], Command.error.rawValue)
            XCTAssertEqual(UInt16(got[8]) << 8 | UInt16(got[9]), ErrorCode.tlsRequired.rawValue)
        }
        XCTAssertEqual(h.service.connectionCounts.registered, 0)
    }

    /// `allow_plain = true`: both on the same port.
    func testPlainAndTLSShareThePortWhenPlainIsAllowed() throws {
        let h = try tlsRoom(allowPlain: true)
        let plain = try h.presenter("plain")
        let fp = try XCTUnwrap(h.service.tlsIdentity?.fingerprint)
        let tls = try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(fp))
        try tls.register(name: "tls", role: .presenter, passcode: ServiceHarness.presenterPass)
        XCTAssertEqual(Set(try plain.state().devices.map(\.name)), ["plain", "tls"])
    }

    /// The web remote's port in plain: a browser's page load goes to https:// (the same
    /// address), a plain WebSocket is refused (403) unless plain is allowed; a hostile Host
    /// header is never echoed into Location.
    func testPlainHTTPIsRedirectedToHTTPS() throws {
        for allow in [false, true] {
            let h = try tlsRoom(allowPlain: allow, webRemote: true)
            try eventually("the web remote listens") { h.service.httpPort != nil }
            let port = h.service.httpPort!
            func ask(_ request: String) throws -> String {
                let s = try RawSocket(port: port)
                _ = s.send(Array(request.utf8))
                return String(decoding: s.read(timeout: 5) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") && $0.count > 40 }, as: UTF8.self)
            }
            let page = try ask("GET /index.html?x=1 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade-Insecure-Requests: 1\r\n\r\n")
            XCTAssertTrue(page.hasPrefix("HTTP/1.1 301"), "allow_plain \(allow): \(page)")
            XCTAssertTrue(page.contains("\r\nLocation: https://127.0.0.1:\(port)/index.html?x=1\r\n"), page)
            let ws = try ask(
                "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            )
            XCTAssertTrue(ws.hasPrefix(allow ? "HTTP/1.1 101" : "HTTP/1.1 403"), "allow_plain \(allow): \(ws)")
            let evil = try ask("GET /a HTTP/1.1\r\nHost: evil.example\r\nX: y\r\nSet-Cookie: a\r\n\r\n")
            XCTAssertTrue(evil.hasPrefix("HTTP/1.1 301"), evil)
            XCTAssertTrue(evil.contains("\r\nLocation: https://127.0.0.1:\(port)/a\r\n"), evil)
            // `/` with the appliance's own certificate: the landing page (§28), whose way on
            // goes to this appliance whatever the Host header says.
            let landing = try ask("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n")
            XCTAssertTrue(landing.hasPrefix("HTTP/1.1 200"), landing)
            XCTAssertFalse(landing.contains("evil.example"), landing)
            let injected = try ask("GET / HTTP/1.1\r\nHost: a\"b<script>\r\n\r\n")
            XCTAssertTrue(injected.hasPrefix("HTTP/1.1 400"), injected)
            XCTAssertFalse(injected.contains("<script>"), injected)
        }
    }

    /// The fingerprint on the idle screen: what the state the test may see says equals
    /// openssl's (short form), and it is drawn (the frame on the output is the idle screen
    /// with it, and differs from the same screen without it at the bottom).
    func testTheIdleScreenShowsTheCertificatesFingerprint() throws {
        let h = try tlsRoom(webRemote: true)
        try eventually("the web remote listens") { h.service.httpPort != nil }
        let hex = try TestCertificates.opensslFingerprint(TLSIdentity.selfSignedPaths(dataDir: h.dir + "/data").certificate)
        let idle = h.service.idleScreen(port: h.port)
        let short = try XCTUnwrap(idle.fingerprint)
        XCTAssertEqual(short.replacingOccurrences(of: " ", with: "").lowercased(), String(hex.prefix(16)))
        // The appliance's own certificate: the QR code opens the landing page (§28) in plain,
        // which goes on to https://.
        XCTAssertTrue(idle.url?.hasPrefix("http://") == true, "the QR code opens the landing page: \(idle.url ?? "")")
        var diff = -1
        try? eventually("the output shows the idle screen with the fingerprint", timeout: 10, interval: 0.1) {
            let now = h.service.idleScreen(port: h.port)
            let expected = Frame(width: 1920, height: 1080, color: .black)
            now.draw(into: expected)
            diff = PixelCompare.differingPixels(h.service.onScreen, expected)
            return diff == 0
        }
        XCTAssertEqual(diff, 0, "the output differs from the idle screen in \(diff) pixels")
        var without = idle
        without.fingerprint = nil
        let a = Frame(width: 1920, height: 1080, color: .black), b = Frame(width: 1920, height: 1080, color: .black)
        idle.draw(into: a)
        without.draw(into: b)
        var bottom = 0
        for y in 1080 * 88 / 100..<1080 {
            for x in 0..<1920 where a.pixel(x: x, y: y) != b.pixel(x: x, y: y) { bottom += 1 }
        }
        XCTAssertGreaterThan(bottom, 500, "the fingerprint is drawn in the bottom band")
        let out = Repository.root + "/.build/test-output"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try PNG.write(h.service.onScreen, to: out + "/idle-tls-16x9.png")
        let r = try Fixtures.run("zbarimg", ["--raw", "-q", out + "/idle-tls-16x9.png"])
        XCTAssertTrue(String(decoding: r.out, as: UTF8.self).hasPrefix("http://"), "the QR code opens the landing page: \(String(decoding: r.out, as: UTF8.self))")
        // With the fingerprint line, nothing reaches the overscan margin at 16:9, 16:10, 4:3.
        for (w, ht, name) in [(1920, 1080, "idle-tls-16x9-overscan"), (1920, 1200, "idle-tls-16x10-overscan"), (1024, 768, "idle-tls-4x3-overscan")] {
            let frame = Frame(width: w, height: ht, color: .black)
            idle.draw(into: frame, overscanPercent: 5)
            XCTAssertEqual(PixelCompare.pixelsInOverscanMargin(frame, overscanPercent: 5, background: idle.background), 0, "\(name): pixels drawn in the overscan margin")
            try PNG.write(frame, to: out + "/\(name).png")
        }
    }

    /// The admin's certificate (signed by a CA of the test's own): presented as given,
    /// not the self-signed one; a key that isn't the certificate's stops the start with a
    /// clear message.
    func testTheAdminsCertificateIsPresented() throws {
        let certs = try TestCertificates(dir: Fixtures.tempDir("tls-ca"))
        let h = try tlsRoom { c in
            c.tlsCertificate = certs.certificatePath
            c.tlsKey = certs.keyPath
        }
        XCTAssertEqual(h.service.tlsIdentity?.fingerprint, certs.fingerprint)
        XCTAssertEqual(h.service.tlsIdentity?.selfSigned, false)
        XCTAssertFalse(FileManager.default.fileExists(atPath: h.dir + "/data/tls/key.pem"), "no self-signed key made")
        let c = try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(certs.fingerprint))
        try c.register(name: "admin-cert", role: .presenter, passcode: ServiceHarness.presenterPass)

        let other = try TestCertificates(dir: Fixtures.tempDir("tls-ca2"))
        XCTAssertThrowsError(
            try tlsRoom { c in
                c.tlsCertificate = certs.certificatePath
                c.tlsKey = other.keyPath
            }
        ) { e in XCTAssertTrue("\(e)".contains("does not go with the certificate"), "\(e)") }
    }
}
