import Foundation
import LecternCore
import LecternRender
import LecternTestSupport
import XCTest

/// The idle screen's branding: a PNG logo (checked before it is decoded) and the accent
/// colour of the code, on real frames.
final class IdleBrandingTests: XCTestCase {
    func count(_ f: Frame, _ c: RGB, in r: PixelRect) -> Int {
        var n = 0
        for y in r.y..<r.maxY { for x in r.x..<r.maxX where f.pixel(x: x, y: y) == c { n += 1 } }
        return n
    }

    func testTheLogoIsDrawnTopLeftInsideTheSafeAreaAndTheCodeInTheAccentColour() throws {
        let dir = Fixtures.tempDir("logo")
        let red = RGB(220, 30, 30), accent = RGB(250, 200, 0)
        try PNG.write(Frame(width: 400, height: 100, color: red), to: dir + "/logo.png")
        XCTAssertNil(IdleLogo.problem(path: dir + "/logo.png"))
        var idle = IdleScreen(room: "Room 4.12", addresses: ["192.0.2.7"], port: 7420, url: "http://192.0.2.7:8080/")
        idle.code = "123456"
        idle.accent = accent
        idle.logoPath = dir + "/logo.png"
        for (w, h) in [(1920, 1080), (1024, 768)] {
            let f = Frame(width: w, height: h, color: .black)
            idle.draw(into: f, overscanPercent: 5)
            let safe = Fit.safeArea(width: w, height: h, overscanPercent: 5)
            let topLeft = PixelRect(x: safe.x, y: safe.y, width: safe.width / 2, height: safe.height / 4)
            XCTAssertGreaterThan(count(f, red, in: topLeft), 1000, "\(w)x\(h): no logo at the top left")
            XCTAssertEqual(count(f, red, in: PixelRect(x: 0, y: 0, width: w, height: h)), count(f, red, in: topLeft), "logo pixels elsewhere")
            XCTAssertGreaterThan(count(f, accent, in: safe), 500, "\(w)x\(h): the code is not in the accent colour")
        }
    }

    func testAHostileLogoIsRefusedBeforeItIsDecoded() throws {
        let dir = Fixtures.tempDir("logo")
        try Data("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8).write(to: URL(fileURLWithPath: dir + "/logo.svg"))
        XCTAssertTrue(IdleLogo.problem(path: dir + "/logo.svg")?.contains("not a PNG") ?? false)
        // A header claiming 100000 × 100000 pixels: refused from its 24 bytes.
        var bomb: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        bomb += [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0, 8, 2, 0, 0, 0]
        try Data(bomb).write(to: URL(fileURLWithPath: dir + "/bomb.png"))
        XCTAssertEqual(IdleLogo.problem(path: dir + "/bomb.png"), "is 100000×100000 pixels: at most 4096 a side")
        XCTAssertEqual(IdleLogo.problem(path: dir + "/missing.png"), "can't be read")
        // Drawing a refused logo draws nothing and doesn't fail the idle screen.
        var idle = IdleScreen(room: "R", addresses: [], port: 1)
        idle.logoPath = dir + "/bomb.png"
        let f = Frame(width: 640, height: 360, color: .black)
        idle.draw(into: f)
    }
}
