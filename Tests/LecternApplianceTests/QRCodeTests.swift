import Foundation
import LecternModel
import LecternRender
import LecternTestSupport
import XCTest

/// The idle screen's QR code: drawn into a frame with whole-pixel modules and a quiet
/// zone, it decodes (zbarimg) to exactly the address a phone opens.
final class QRCodeTests: XCTestCase {
    let url = "http://192.0.2.7:7421/?room=Room%204.12"

    func testTheDrawnCodeDecodesWithZbarToTheExactURL() throws {
        let q = try XCTUnwrap(QRCode(url))
        let frame = Frame(width: 1920, height: 1080, color: RGB(0, 0, 128))
        let drawn = try XCTUnwrap(
            q.draw(
                into: frame, at: PixelRect(x: 1400, y: 560, width: 420, height: 420),
                dark: RGB(20, 20, 20), light: RGB(240, 240, 240)))
        let path = Fixtures.tempDir("qr") + "/idle.png"
        try PNG.write(frame, to: path)
        let r = try runOK("zbarimg", ["--raw", "-q", path])
        XCTAssertEqual(r.out, url + "\n")
        XCTAssertTrue(drawn.width <= 420)
    }

    func testSmallAndLargeModulesDecodeToo() throws {
        for side in [q0Side(), 900] {
            let q = try XCTUnwrap(QRCode(url))
            let frame = Frame(width: 1000, height: 1000, color: .white)
            XCTAssertNotNil(q.draw(into: frame, at: PixelRect(x: 0, y: 0, width: side, height: side), dark: .black, light: .white))
            let path = Fixtures.tempDir("qr") + "/qr-\(side).png"
            try PNG.write(frame, to: path)
            XCTAssertEqual(try runOK("zbarimg", ["--raw", "-q", path]).out, url + "\n", "side \(side)")
        }
    }

    /// The smallest square that fits 2-pixel modules (1-pixel ones are below what zbar
    /// reads reliably; the idle screen never draws that small).
    func q0Side() -> Int { (QRCode(url)!.size + 8) * 2 }

    func testModulesAreWholePixelsOfTheLargestSizeCentredWithAQuietZone() throws {
        let q = try XCTUnwrap(QRCode(url))
        let n = q.size, side = n + 8
        let rect = PixelRect(x: 100, y: 50, width: side * 7 + 5, height: side * 9 + 3)   // 7 fits across, not 8
        let background = RGB(1, 2, 3), dark = RGB(10, 20, 30), light = RGB(200, 210, 220)
        let frame = Frame(width: 1000, height: 1000, color: background)
        let drawn = try XCTUnwrap(q.draw(into: frame, at: rect, dark: dark, light: light))
        let m = 7
        XCTAssertEqual(q.moduleSize(fitting: rect.width, rect.height), m)
        XCTAssertEqual(drawn.width, side * m)
        XCTAssertEqual(drawn.height, side * m)
        // Centred: the leftover split evenly (integer halves).
        XCTAssertEqual(drawn.x, rect.x + (rect.width - side * m) / 2)
        XCTAssertEqual(drawn.y, rect.y + (rect.height - side * m) / 2)
        // Outside the square: untouched.
        XCTAssertEqual(frame.pixel(x: drawn.x - 1, y: drawn.y), background)
        XCTAssertEqual(frame.pixel(x: drawn.x, y: drawn.maxY), background)
        // The quiet zone: 4 modules of light all round.
        XCTAssertTrue(frame.isUniform(PixelRect(x: drawn.x, y: drawn.y, width: drawn.width, height: 4 * m), light))
        XCTAssertTrue(frame.isUniform(PixelRect(x: drawn.x, y: drawn.maxY - 4 * m, width: drawn.width, height: 4 * m), light))
        XCTAssertTrue(frame.isUniform(PixelRect(x: drawn.x, y: drawn.y, width: 4 * m, height: drawn.height), light))
        XCTAssertTrue(frame.isUniform(PixelRect(x: drawn.maxX - 4 * m, y: drawn.y, width: 4 * m, height: drawn.height), light))
        // Every module: an m×m square of one colour, the right one.
        for y in 0..<n {
            for x in 0..<n {
                let cell = PixelRect(x: drawn.x + (4 + x) * m, y: drawn.y + (4 + y) * m, width: m, height: m)
                XCTAssertTrue(frame.isUniform(cell, q.isDark(x: x, y: y) ? dark : light), "module \(x),\(y)")
            }
        }
        // The finder pattern's corner is dark.
        XCTAssertTrue(q.isDark(x: 0, y: 0))
    }

    func testARectTooSmallDrawsNothing() throws {
        let q = try XCTUnwrap(QRCode(url))
        let frame = Frame(width: 200, height: 200, color: .black)
        XCTAssertNil(q.draw(into: frame, at: PixelRect(x: 0, y: 0, width: q.size + 7, height: 200), dark: .black, light: .white))
        XCTAssertTrue(frame.isUniform(frame.bounds, .black))
        XCTAssertEqual(q.sideWithQuietZone, q.size + 8)
        XCTAssertEqual(q.moduleSize(fitting: q.size + 8, q.size + 8), 1)
    }
}
