import LecternProtocol
import XCTest

final class CertificateFingerprintTests: XCTestCase {
    /// The SHA-256 of the DER, its short form as on the wall, and what `--fingerprint` takes.
    func testFormsAndMatching() throws {
        let f = CertificateFingerprint(der: Array("abc".utf8))
        XCTAssertEqual(f.hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(f.short, "BA78 16BF 8F01 CFEA")
        XCTAssertEqual(f.description, "SHA-256 BA78 16BF 8F01 CFEA")
        for given in ["BA78 16BF 8F01 CFEA", "ba7816bf8f01cfea", "BA:78:16:BF:8F:01:CF:EA:41", "SHA256 " + f.hex, "sha-256 ba78 16bf 8f01 cfea"] {
            let g = try XCTUnwrap(CertificateFingerprint.Given(given), given)
            XCTAssertTrue(g.matches(f), given)
        }
        XCTAssertFalse(try XCTUnwrap(CertificateFingerprint.Given("ba7816bf8f01cfeb")).matches(f))
        for bad in ["", "ba7816bf", "zz7816bf8f01cfea", f.hex + "00", "ba7816bf8f01cfea;"] {
            XCTAssertNil(CertificateFingerprint.Given(bad), bad)
        }
        XCTAssertNil(CertificateFingerprint(bytes: [1, 2, 3]))
    }
}
