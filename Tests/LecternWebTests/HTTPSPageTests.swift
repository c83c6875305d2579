import Foundation
import LecternClient
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// The web remote over HTTPS in a real headless Chromium that trusts the test's own CA
/// (an NSS database made with certutil, libnss3-tools, in a HOME of the test's own): the
/// page loads without a certificate warning, joins over wss://, uses WebCrypto; a plain
/// http:// address is sent on to https://.
final class HTTPSPageTests: XCTestCase {
    /// A HOME whose NSS database (Chromium's on Linux) trusts `ca`.
    static func trustingHome(ca: String) throws -> String {
        let home = Fixtures.tempDir("nss-home")
        let db = home + "/.pki/nssdb"
        try FileManager.default.createDirectory(atPath: db, withIntermediateDirectories: true)
        let create = try Fixtures.run("certutil", ["-d", "sql:" + db, "-N", "--empty-password"])
        guard create.status == 0 else { throw Fixtures.ToolError(description: "certutil -N: \(create.err)") }
        let add = try Fixtures.run("certutil", ["-d", "sql:" + db, "-A", "-t", "C,,", "-n", "Lectern test CA", "-i", ca])
        guard add.status == 0 else { throw Fixtures.ToolError(description: "certutil -A: \(add.err)") }
        return home
    }

    func testTheWebRemoteLoadsOverHTTPSAndJoinsOverWSS() throws {
        let certs = try TestCertificates(dir: Fixtures.tempDir("web-tls"))
        let home = try Self.trustingHome(ca: certs.caPath)
        let driver = try ChromeDriver(environment: ["HOME": home])
        let h = try ServiceHarness(floor: .open, room: ServiceHarness.webRoom, webRemote: true) { c in
            c.tls = true
            c.tlsCertificate = certs.certificatePath
            c.tlsKey = certs.keyPath
        }
        h.attach(driver) { driver.quit() }
        try eventually("the web remote listens") { h.service.httpPort != nil }
        let s = try driver.session(width: 1366, height: 768)
        // Typed as on the wall (http://), sent on to https:// by the service.
        try s.open("http://127.0.0.1:\(h.service.httpPort!)/")
        _ = try s.wait(for: "#login-form")
        try s.poll("the room name from hello, over wss://") { try s.text("#login-room") == ServiceHarness.webRoom }
        let page = try s.execute("return [location.href, isSecureContext, window.Lectern.usesWebCrypto()]") as? [Any] ?? []
        XCTAssertEqual(page.first as? String, h.httpsURL, "redirected to https://")
        XCTAssertEqual(page.count > 1 ? page[1] as? Bool : nil, true, "a secure context: no certificate error")
        XCTAssertEqual(page.count > 2 ? page[2] as? Bool : nil, true, "WebCrypto, not the page's own JavaScript")
        try h.joinAndWait(s, name: "Over HTTPS")
        XCTAssertNotNil(try h.device(named: "Over HTTPS"), "joined over wss://")
    }
}
