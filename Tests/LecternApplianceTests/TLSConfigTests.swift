import LecternModel
import LecternService
import XCTest

/// The TLS keys of the config file (docs/config.md, "TLS").
final class TLSConfigTests: XCTestCase {
    let base = "passcode = \"tulip-harbour\"\nmoderator_passcode = \"granite-lantern\"\n"

    func testTLSIsOnByDefaultAndItsKeysAreChecked() {
        let plain = ConfigFile.parse(base)
        XCTAssertEqual(plain.problems, [])
        XCTAssertTrue(plain.config.tls)
        XCTAssertFalse(plain.config.allowPlain)

        let half = ConfigFile.parse(base + "tls_certificate = \"/etc/hostname\"\n")
        XCTAssertEqual(
            half.problems.map(\.description),
            [
                "line 3: 'tls_certificate' is set but 'tls_key' is not: give both (the certificate chain and its private key), or neither for a self-signed certificate"
            ])
        XCTAssertEqual(ConfigFile.parse(base + "tls_key = \"relative.key\"\n").problems.first?.line, 3)
        let off = ConfigFile.parse(base + "tls = false\nallow_plain = true\n")
        XCTAssertEqual(off.problems, [])
        XCTAssertFalse(off.config.tls)
        XCTAssertEqual(off.warnings.map(\.line), [3], "tls = false is warned about")
        XCTAssertEqual(
            ConfigFile.parse(base + "tls = false\ntls_certificate = \"/etc/hostname\"\ntls_key = \"/etc/hostname\"\n").problems.map(\.description),
            ["line 3: 'tls' is false but 'tls_certificate' is set: remove the certificate, or set tls = true"])
        XCTAssertEqual(ConfigFile.parse(base + "allow_plain = \"yes\"\n").problems.map(\.line), [3])
        XCTAssertEqual(
            ConfigFile.parse(base + "tls_certificate = \"/nonexistent/room.pem\"\ntls_key = \"/nonexistent/room.key\"\n").problems.map(\.description),
            [
                "line 3: 'tls_certificate' (/nonexistent/room.pem) can't be read",
                "line 4: 'tls_key' (/nonexistent/room.key) can't be read (lecternd runs as the lectern user: chown lectern, chmod 600)",
            ])
    }
}
