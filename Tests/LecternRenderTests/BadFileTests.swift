import Foundation
import LecternModel
import LecternRender
import LecternTestSupport
import XCTest

/// Files a presenter might upload by mistake: each gives its typed error, never a crash.
final class BadFileTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = Fixtures.tempDir("bad") }

    func write(_ data: Data, _ name: String) throws -> String {
        let p = dir + "/" + name
        try data.write(to: URL(fileURLWithPath: p))
        return p
    }

    func assertOpen(_ path: String, throws expected: (ContentError) -> Bool, _ what: String) {
        XCTAssertThrowsError(try PDFDocument(path: path), what) { error in
            guard let e = error as? ContentError else { return XCTFail("\(what): untyped error \(error)") }
            XCTAssertTrue(expected(e), "\(what): got \(e.code): \(e)")
            XCTAssertFalse(e.description.isEmpty)
        }
    }

    func testEmpty() throws {
        assertOpen(try write(Data(), "empty.pdf"), throws: { $0 == .empty }, "empty")
    }

    func testRandomBytes() throws {
        var g = SystemRandomNumberGenerator()
        let bytes = Data((0..<65536).map { _ in UInt8.random(in: 0...255, using: &g) })
        assertOpen(try write(bytes, "random.pdf"), throws: { $0 == .notAPDF }, "random bytes")
    }

    func testPNGRenamedToPDF() throws {
        let png = PNG.encode(Frame(width: 64, height: 48, color: .white))
        assertOpen(try write(png, "slides.pdf"), throws: { $0 == .notAPDF }, "PNG named .pdf")
    }

    func testTruncated() throws {
        let full = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.numberedDeck(count: 4, in: dir)))
        let half = try write(full.prefix(full.count / 2), "truncated.pdf")
        assertOpen(
            half,
            throws: {
                if case .damaged = $0 { return true }; return false
            }, "truncated at half")
        let headerOnly = try write(full.prefix(20), "header.pdf")
        assertOpen(
            headerOnly,
            throws: {
                if case .damaged = $0 { return true }; return false
            }, "only the header")
    }

    func testPasswordProtected() throws {
        let plain = try Fixtures.numberedDeck(count: 1, in: dir)
        let locked = dir + "/locked.pdf"
        let r = try Fixtures.run("qpdf", ["--encrypt", "user-secret", "owner-secret", "256", "--", plain, locked])
        XCTAssertEqual(r.status, 0, r.err)
        assertOpen(locked, throws: { $0 == .passwordProtected }, "password-protected")
    }

    func testMissingFile() {
        assertOpen(
            dir + "/nope.pdf",
            throws: {
                if case .unreadable = $0 { return true }; return false
            }, "missing")
    }
}
