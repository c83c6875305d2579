import Foundation
import LecternModel
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
        XCTAssertEqual(IdleLogo.problem(path: dir + "/logo.svg"), "is an SVG without a size or viewBox")
        try Data("GIF89a not a logo".utf8).write(to: URL(fileURLWithPath: dir + "/logo.gif"))
        XCTAssertEqual(IdleLogo.problem(path: dir + "/logo.gif"), "is neither a PNG nor an SVG file")
        try Data("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect".utf8).write(to: URL(fileURLWithPath: dir + "/broken.svg"))
        XCTAssertEqual(IdleLogo.problem(path: dir + "/broken.svg"), "is not an SVG librsvg can read")
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

    /// An SVG logo through librsvg, drawn at the size it is shown: its colours at the top
    /// left, sharp (a solid rectangle fills its box with one colour), nowhere else; an
    /// image it refers to is not loaded.
    func testAnSVGLogoIsDrawnThroughLibrsvg() throws {
        let dir = Fixtures.tempDir("svg-logo")
        let green = RGB(0, 160, 60), red = RGB(220, 30, 30)
        try PNG.write(Frame(width: 50, height: 50, color: red), to: dir + "/outside.png")
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 40 10">
              <rect x="0" y="0" width="40" height="10" fill="#00a03c"/>
              <image x="0" y="0" width="5" height="5" xlink:href="file://\(dir)/outside.png"/>
              <image x="5" y="0" width="5" height="5" xlink:href="outside.png"/>
            </svg>
            """
        try Data(svg.utf8).write(to: URL(fileURLWithPath: dir + "/logo.svg"))
        XCTAssertNil(IdleLogo.problem(path: dir + "/logo.svg"))
        var idle = IdleScreen(room: "Room 4.12", addresses: ["192.0.2.7"], port: 7420, url: "https://192.0.2.7:8080/")
        idle.logoPath = dir + "/logo.svg"
        for (w, h) in [(1920, 1080), (1024, 768)] {
            let f = Frame(width: w, height: h, color: .black)
            idle.draw(into: f, overscanPercent: 5)
            let safe = Fit.safeArea(width: w, height: h, overscanPercent: 5)
            let topLeft = PixelRect(x: safe.x, y: safe.y, width: safe.width / 2, height: safe.height / 4)
            let inside = count(f, green, in: topLeft)
            // A solid 4:1 rectangle, scaled up from its 40×10: its bounding box is full.
            var minX = w, minY = h, maxX = -1, maxY = -1
            for y in 0..<h { for x in 0..<w where f.pixel(x: x, y: y) == green { minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y) } }
            let bw = maxX - minX + 1, bh = maxY - minY + 1
            XCTAssertEqual(Double(bw) / Double(bh), 4, accuracy: 0.15, "\(w)x\(h): the SVG keeps its aspect (\(bw)×\(bh))")
            XCTAssertGreaterThan(bw, 150, "\(w)x\(h): drawn at the size shown, not its own 40×10")
            XCTAssertEqual(inside, bw * bh, "\(w)x\(h): one solid colour over its box")
            XCTAssertEqual(count(f, green, in: PixelRect(x: 0, y: 0, width: w, height: h)), inside, "logo pixels elsewhere")
            XCTAssertEqual(count(f, red, in: PixelRect(x: 0, y: 0, width: w, height: h)), 0, "an image the SVG refers to was loaded")
        }
    }

    /// A background image (PNG or SVG) covers the whole idle screen, under the text and
    /// the QR code (which still decodes); a missing one leaves the background colour.
    func testABackgroundImageCoversTheIdleScreen() throws {
        let dir = Fixtures.tempDir("background")
        let navy = RGB(10, 20, 90)
        let svg = "<svg xmlns='http://www.w3.org/2000/svg' width='160' height='90'><rect width='160' height='90' fill='#0a145a'/></svg>"
        try Data(svg.utf8).write(to: URL(fileURLWithPath: dir + "/bg.svg"))
        try PNG.write(Frame(width: 40, height: 30, color: navy), to: dir + "/bg.png")
        for path in [dir + "/bg.svg", dir + "/bg.png"] {
            XCTAssertNil(IdleLogo.problem(path: path))
            var idle = IdleScreen(room: "Room 4.12", addresses: ["192.0.2.7"], port: 7420, url: "https://192.0.2.7:8080/")
            idle.backgroundImagePath = path
            for (w, h) in [(1920, 1080), (1920, 1200), (1024, 768)] {
                let f = Frame(width: w, height: h, color: .black)
                idle.draw(into: f, overscanPercent: 5)
                XCTAssertEqual(f.pixel(x: 0, y: 0), navy, "\(path) \(w)x\(h): corner")
                XCTAssertEqual(f.pixel(x: w - 1, y: h - 1), navy, "\(path) \(w)x\(h): corner")
                XCTAssertEqual(f.pixel(x: w / 2, y: 2), navy)
                XCTAssertGreaterThan(count(f, navy, in: PixelRect(x: 0, y: 0, width: w, height: h)), w * h / 2, "most of the screen is the image")
                let png = dir + "/idle-bg-\(w)x\(h).png"
                try PNG.write(f, to: png)
                let r = try Fixtures.run("zbarimg", ["--raw", "-q", png])
                XCTAssertEqual(String(decoding: r.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "https://192.0.2.7:8080/")
            }
        }
        var idle = IdleScreen(room: "R", addresses: [], port: 1, background: RGB(1, 2, 3))
        idle.backgroundImagePath = dir + "/missing.svg"
        let f = Frame(width: 320, height: 180, color: .black)
        idle.draw(into: f)
        XCTAssertEqual(f.pixel(x: 0, y: 0), RGB(1, 2, 3))
    }
}
