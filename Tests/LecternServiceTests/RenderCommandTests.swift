import Foundation
import LecternModel
import LecternRender
import LecternTestSupport
import XCTest

/// `lectern render`, the built binary, end to end.
final class RenderCommandTests: XCTestCase {
    func testRenderA43PageGives240PixelBarsAndMatchesPdftoppm() throws {
        let dir = Fixtures.tempDir("cli")
        let pdf = try Fixtures.pdf(
            [
                Fixtures.quadrantPage(width: 720, height: 540),
                Fixtures.quadrantPage(width: 960, height: 540),
            ], in: dir)
        let out = dir + "/page.png"
        let r = try Fixtures.run(try Fixtures.binary("lectern"), ["render", pdf, "--page", "1", "--mode", "1920x1080", "-o", out])
        XCTAssertEqual(r.status, 0, r.err)
        let frame = try PNG.read(path: out)
        XCTAssertEqual(frame.width, 1920); XCTAssertEqual(frame.height, 1080)
        XCTAssertTrue(frame.isUniform(PixelRect(x: 0, y: 0, width: 240, height: 1080), .black))
        XCTAssertTrue(frame.isUniform(PixelRect(x: 1680, y: 0, width: 240, height: 1080), .black))
        XCTAssertEqual(frame.pixel(x: 240, y: 540), .white)
        XCTAssertEqual(frame.pixel(x: 1679, y: 540), .white)
        let reference = try Fixtures.pdftoppm(pdf, page: 1, width: 1440, height: 1080)
        XCTAssertLessThan(PixelCompare.meanDifference(frame, PixelRect(x: 240, y: 0, width: 1440, height: 1080), reference), 1.5)
    }

    func testRenderErrorsAreOneClearLineAndNonZero() throws {
        let dir = Fixtures.tempDir("cli")
        let notPDF = dir + "/notes.pdf"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notPDF))
        let r = try Fixtures.run(try Fixtures.binary("lectern"), ["render", notPDF, "-o", dir + "/x.png"])
        XCTAssertEqual(r.status, 1, "README: 1 for a problem on this side")
        XCTAssertTrue(r.err.contains("not a PDF"), r.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x.png"))
        let pdf = try Fixtures.numberedDeck(count: 2, in: dir)
        let r2 = try Fixtures.run(try Fixtures.binary("lectern"), ["render", pdf, "--page", "7", "-o", dir + "/x.png"])
        XCTAssertEqual(r2.status, 1)
        XCTAssertTrue(r2.err.contains("There is no page 7"), r2.err)
        let r3 = try Fixtures.run(try Fixtures.binary("lectern"), ["render", pdf, "--mode", "huge", "-o", dir + "/x.png"])
        XCTAssertEqual(r3.status, 1, r3.err)
        XCTAssertTrue(r3.err.contains("--mode"), r3.err)
        let r4 = try Fixtures.run(try Fixtures.binary("lectern"), ["render", dir + "/missing.pdf", "-o", dir + "/x.png"])
        XCTAssertEqual(r4.status, 1, r4.err)
    }

    /// A PDF without its `%PDF-` header that poppler opens renders like the original.
    func testRenderAPDFWithoutItsHeader() throws {
        let dir = Fixtures.tempDir("cli")
        let pdf = try Fixtures.numberedDeck(count: 2, in: dir)
        let data = try Data(contentsOf: URL(fileURLWithPath: pdf))
        let stripped = dir + "/stripped.pdf"
        try data.suffix(from: data.firstIndex(of: UInt8(ascii: "\n"))! + 1).write(to: URL(fileURLWithPath: stripped))
        let out = dir + "/a.png", reference = dir + "/b.png"
        let r = try Fixtures.run(try Fixtures.binary("lectern"), ["render", stripped, "--page", "2", "--mode", "640x360", "-o", out])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(try Fixtures.run(try Fixtures.binary("lectern"), ["render", pdf, "--page", "2", "--mode", "640x360", "-o", reference]).status, 0)
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.read(path: out), try PNG.read(path: reference)), 0)
    }
}
