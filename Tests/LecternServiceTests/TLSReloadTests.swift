import Foundation
import Glibc
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// A renewed certificate picked up by `systemctl reload` (SIGHUP to the real lecternd),
/// as certbot's deploy hook or the admin's CA renewal does it (docs/config.md, "TLS"):
/// connections made before stay and keep working, new connections on both ports get the
/// new certificate; a certificate that can't be read refuses the reload and nothing changes.
final class TLSReloadTests: XCTestCase {
    struct Room {
        let dir = Fixtures.tempDir("tls-reload")
        var certificate: String { dir + "/tls/fullchain.pem" }
        var key: String { dir + "/tls/privkey.pem" }
        let web: Int

        init() throws {
            web = try Fixtures.freePort()
            try FileManager.default.createDirectory(atPath: dir + "/tls", withIntermediateDirectories: true)
        }

        /// Puts `c`'s files where the config points, as a renewal replaces them (written
        /// aside, then renamed over: a reader never sees half a file).
        func install(_ c: TestCertificates) throws {
            for (from, to) in [(c.certificatePath, certificate), (c.keyPath, key)] {
                try? FileManager.default.removeItem(atPath: to + ".new")
                try FileManager.default.copyItem(atPath: from, toPath: to + ".new")
                chmod(to + ".new", 0o600)
                guard rename(to + ".new", to) == 0 else { throw Fixtures.ToolError(description: "rename \(to): \(String(cString: strerror(errno)))") }
            }
        }

        var configPath: String { dir + "/lectern.toml" }

        func writeConfig() throws {
            try """
            room = "Reload Room"
            port = 7420
            http_port = \(web)
            passcode = "reload-passcode"
            floor = "open"
            data_dir = "\(dir)/data"
            tls_certificate = "\(certificate)"
            tls_key = "\(key)"
            [display]
            output = "virtual"
            mode = "1280x720@60"
            """.write(toFile: configPath, atomically: true, encoding: .utf8)
            chmod(configPath, 0o600)
        }

        func start() throws -> (RunningProcess, Int) {
            try writeConfig()
            let p = try RunningProcess(try Fixtures.binary("lecternd"), ["--config", dir + "/lectern.toml", "--host", "127.0.0.1", "--port", "0"])
            let out = try p.waitForOutput { $0.contains("listening on port ") && $0.contains("web remote: https://") }
            let port = Int((out.components(separatedBy: "listening on port ").last ?? "").prefix { $0.isNumber }) ?? 0
            return (p, port)
        }
    }

    /// The certificate a new connection to `port` is shown.
    func presented(_ port: Int) throws -> CertificateFingerprint? {
        let seen = Shared<CertificateFingerprint?>(nil)
        let c = try LecternConnection(
            host: "127.0.0.1", port: port,
            tls: ClientTLS { f in
                seen.value = f; return true
            })
        c.close()
        return seen.value
    }

    func testARenewedCertificateReachesNewConnectionsAndDropsNobody() throws {
        let room = try Room()
        let old = try TestCertificates(dir: room.dir + "/old"), renewed = try TestCertificates(dir: room.dir + "/renewed")
        try room.install(old)
        let (p, port) = try room.start()
        defer { p.kill(SIGTERM); _ = p.waitForExit() }

        // A presenter with the floor, and a browser's HTTPS connection kept open, before.
        let phone = try LecternConnection(host: "127.0.0.1", port: port, tls: .pinned(old.fingerprint))
        try phone.register(name: "Phone", role: .presenter, passcode: "reload-passcode")
        _ = try phone.requestFloor()
        let page = try RawSocket(port: room.web, tls: old.fingerprint)
        XCTAssertEqual(try presented(port), old.fingerprint)

        try room.install(renewed)
        p.kill(SIGHUP)
        let log = try p.waitForOutput { $0.contains("config reloaded") }
        XCTAssertTrue(log.contains("fingerprint \(renewed.fingerprint.hex)"), log)

        // Nobody dropped: the phone still drives with the floor, the page still loads.
        let state = try phone.state()
        XCTAssertEqual(state.floor.holder, phone.registration?.deviceID, "the phone kept the floor")
        XCTAssertEqual(state.devices.map(\.name), ["Phone"])
        XCTAssertTrue(page.send(Array("GET /lectern.css HTTP/1.1\r\nHost: 127.0.0.1:\(room.web)\r\n\r\n".utf8)))
        let answer = String(decoding: page.read(timeout: 10) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }, as: UTF8.self)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), "the connection made before the reload still answers: \(answer.prefix(200))")
        page.close()

        // New connections, both ports: the renewed certificate.
        XCTAssertEqual(try presented(port), renewed.fingerprint)
        let fresh = try RawSocket(port: room.web, tls: renewed.fingerprint)
        XCTAssertEqual(fresh.certificate, renewed.fingerprint)
        fresh.close()
        XCTAssertThrowsError(try RawSocket(port: room.web, tls: old.fingerprint), "the old certificate is no longer shown")
        let second = try LecternConnection(host: "127.0.0.1", port: port, tls: .pinned(renewed.fingerprint))
        try second.register(name: "Laptop", role: .presenter, passcode: "reload-passcode")
        XCTAssertEqual(Set(try second.state().devices.map(\.name)), ["Phone", "Laptop"])
    }

    func testAnUnreadableCertificateRefusesTheReload() throws {
        let room = try Room()
        let old = try TestCertificates(dir: room.dir + "/old")
        try room.install(old)
        let (p, port) = try room.start()
        defer { p.kill(SIGTERM); _ = p.waitForExit() }
        try "not a certificate\n".write(toFile: room.certificate, atomically: true, encoding: .utf8)
        p.kill(SIGHUP)
        let log = try p.waitForOutput { $0.contains("reload refused") }
        XCTAssertTrue(log.contains(room.certificate), log)
        XCTAssertEqual(try presented(port), old.fingerprint, "the certificate in force stays")
        XCTAssertTrue(p.process.isRunning)
    }

    /// The wall shows the fingerprint new connections get: the idle screen is drawn again
    /// with the renewed certificate's (in-process service, the same reload).
    func testTheWallShowsTheRenewedFingerprint() throws {
        let room = try Room()
        let old = try TestCertificates(dir: room.dir + "/old"), renewed = try TestCertificates(dir: room.dir + "/renewed")
        try room.install(old)
        let h = try ServiceHarness(floor: .open, webRemote: true) { c in
            c.tlsCertificate = room.certificate
            c.tlsKey = room.key
        }
        XCTAssertEqual(h.service.idleScreen(port: h.port).fingerprint, old.fingerprint.short)
        try room.writeConfig()
        try room.install(renewed)
        XCTAssertEqual(h.service.reload(configPath: room.configPath), [])
        let idle = h.service.idleScreen(port: h.port)
        XCTAssertEqual(idle.fingerprint, renewed.fingerprint.short)
        var diff = -1
        try? eventually("the output shows the idle screen with the renewed fingerprint", timeout: 10, interval: 0.1) {
            let expected = Frame(width: h.service.onScreen.width, height: h.service.onScreen.height, color: .black)
            h.service.idleScreen(port: h.port).draw(into: expected)
            diff = PixelCompare.differingPixels(h.service.onScreen, expected)
            return diff == 0
        }
        XCTAssertEqual(diff, 0, "the output differs from the idle screen with the renewed fingerprint in \(diff) pixels")
    }
}
