import LecternModel
import XCTest

final class GeometryTests: XCTestCase {
    struct Case {
        var name: String
        var source: SourceShape
        var mode: (Int, Int)
        var overscan: Double = 0
        var expected: PixelRect
    }

    let a4 = (w: 595.0, h: 842.0)

    func testFitTable() {
        let cases: [Case] = [
            Case(
                name: "4:3 into 16:9", source: .init(width: 1024, height: 768), mode: (1920, 1080),
                expected: .init(x: 240, y: 0, width: 1440, height: 1080)),
            Case(
                name: "4:3 PDF points into 16:9", source: .init(width: 720, height: 540), mode: (1920, 1080),
                expected: .init(x: 240, y: 0, width: 1440, height: 1080)),
            Case(
                name: "16:9 fills 16:9", source: .init(width: 1280, height: 720), mode: (1920, 1080),
                expected: .init(x: 0, y: 0, width: 1920, height: 1080)),
            Case(
                name: "portrait A4 pillarboxed", source: .init(width: a4.w, height: a4.h), mode: (1920, 1080),
                expected: .init(x: 578, y: 0, width: 763, height: 1080)),
            Case(
                name: "landscape A4 (portrait page rotated 90)", source: .init(width: a4.w, height: a4.h, rotation: 90),
                mode: (1920, 1080), expected: .init(x: 196, y: 0, width: 1528, height: 1080)),
            Case(
                name: "rotation 270 same as 90", source: .init(width: a4.w, height: a4.h, rotation: 270),
                mode: (1920, 1080), expected: .init(x: 196, y: 0, width: 1528, height: 1080)),
            Case(
                name: "rotation -90 same as 270", source: .init(width: a4.w, height: a4.h, rotation: -90),
                mode: (1920, 1080), expected: .init(x: 196, y: 0, width: 1528, height: 1080)),
            Case(
                name: "rotation 180 keeps shape", source: .init(width: 1024, height: 768, rotation: 180),
                mode: (1920, 1080), expected: .init(x: 240, y: 0, width: 1440, height: 1080)),
            Case(
                name: "16:9 into 16:10 letterboxed", source: .init(width: 1920, height: 1080), mode: (1920, 1200),
                expected: .init(x: 0, y: 60, width: 1920, height: 1080)),
            Case(
                name: "4:3 into 16:10 pillarboxed", source: .init(width: 1024, height: 768), mode: (1920, 1200),
                expected: .init(x: 160, y: 0, width: 1600, height: 1200)),
            Case(
                name: "16:9 into 5:4 letterboxed", source: .init(width: 1920, height: 1080), mode: (1280, 1024),
                expected: .init(x: 0, y: 152, width: 1280, height: 720)),
            Case(
                name: "4:3 into 5:4 letterboxed", source: .init(width: 1024, height: 768), mode: (1280, 1024),
                expected: .init(x: 0, y: 32, width: 1280, height: 960)),
            Case(
                name: "16:9 into 21:9 pillarboxed", source: .init(width: 1920, height: 1080), mode: (2560, 1080),
                expected: .init(x: 320, y: 0, width: 1920, height: 1080)),
            Case(
                name: "4:3 into 21:9 pillarboxed", source: .init(width: 1024, height: 768), mode: (2560, 1080),
                expected: .init(x: 560, y: 0, width: 1440, height: 1080)),
            Case(
                name: "anamorphic 720x576 SAR 16:11 is 1.818 wide: letterboxed", source: .init(width: 720, height: 576, sampleAspect: 16.0 / 11.0),
                mode: (1920, 1080), expected: .init(x: 0, y: 12, width: 1920, height: 1056)),
            Case(
                name: "anamorphic 720x576 SAR 12:11 is 4:3-ish", source: .init(width: 720, height: 576, sampleAspect: 12.0 / 11.0),
                mode: (1920, 1080), expected: .init(x: 223, y: 0, width: 1473, height: 1080)),
            Case(
                name: "portrait video 1080x1920", source: .init(width: 1080, height: 1920), mode: (1920, 1080),
                expected: .init(x: 656, y: 0, width: 608, height: 1080)),
            Case(
                name: "overscan 5% shrinks the area", source: .init(width: 1920, height: 1080), mode: (1920, 1080), overscan: 5,
                expected: .init(x: 96, y: 54, width: 1728, height: 972)),
            Case(
                name: "overscan 5% with 4:3", source: .init(width: 1024, height: 768), mode: (1920, 1080), overscan: 5,
                expected: .init(x: 312, y: 54, width: 1296, height: 972)),
            Case(
                name: "odd leftover goes right", source: .init(width: 1000, height: 1000), mode: (1921, 1080),
                expected: .init(x: 420, y: 0, width: 1080, height: 1080)),
        ]
        for c in cases {
            let r = Fit.rect(for: c.source, width: c.mode.0, height: c.mode.1, overscanPercent: c.overscan)
            XCTAssertEqual(r, c.expected, c.name)
            // Whatever the case: inside the output, centred to the pixel, aspect within a pixel.
            XCTAssertGreaterThanOrEqual(r.x, 0, c.name); XCTAssertLessThanOrEqual(r.maxX, c.mode.0, c.name)
            XCTAssertLessThanOrEqual(abs((c.mode.0 - r.maxX) - r.x), 1, c.name)
            XCTAssertLessThanOrEqual(abs((c.mode.1 - r.maxY) - r.y), 1, c.name)
            let want = c.source.displayAspect
            XCTAssertLessThan(abs(Double(r.width) - Double(r.height) * want), 1.0, c.name)
        }
    }

    func testSafeArea() {
        XCTAssertEqual(Fit.safeArea(width: 1920, height: 1080), PixelRect(x: 0, y: 0, width: 1920, height: 1080))
        XCTAssertEqual(Fit.safeArea(width: 1920, height: 1080, overscanPercent: 2.5), PixelRect(x: 48, y: 27, width: 1824, height: 1026))
        // Out-of-range margins are clamped, never negative or more than half the screen.
        XCTAssertEqual(Fit.safeArea(width: 100, height: 100, overscanPercent: -3), PixelRect(x: 0, y: 0, width: 100, height: 100))
        XCTAssertEqual(Fit.safeArea(width: 100, height: 100, overscanPercent: 80), PixelRect(x: 25, y: 25, width: 50, height: 50))
    }

    func testPreviewSize() {
        func size(_ w: Int, _ h: Int, _ mw: Int, _ mh: Int) -> [Int] {
            let s = Fit.previewSize(width: w, height: h, maxWidth: mw, maxHeight: mh)
            return [s.width, s.height]
        }
        XCTAssertEqual(size(1920, 1080, 480, 0), [480, 270], "width bounds, aspect kept")
        XCTAssertEqual(size(1920, 1080, 480, 200), [356, 200], "height bounds when tighter")
        XCTAssertEqual(size(1920, 1080, 0, 0), [1920, 1080], "no limit: the output's size")
        XCTAssertEqual(size(1920, 1080, 4000, 4000), [1920, 1080], "never larger than the output")
        XCTAssertEqual(size(1280, 1024, 320, 0), [320, 256])
        XCTAssertEqual(size(1920, 1080, 1, 1), [1, 1], "tiny, but never empty")
    }

    func testModeParsing() {
        XCTAssertEqual(DisplayMode(parsing: "1920x1080"), DisplayMode(width: 1920, height: 1080, refresh: 60))
        XCTAssertEqual(DisplayMode(parsing: "1280x1024@75"), DisplayMode(width: 1280, height: 1024, refresh: 75))
        XCTAssertEqual(DisplayMode(parsing: "1920×1080@59.94")?.refresh, 59.94)
        for bad in ["", "1920", "1920x", "x1080", "0x0", "1920x1080@", "1920x1080@0", "axb", "99999x10"] {
            XCTAssertNil(DisplayMode(parsing: bad), bad)
        }
        XCTAssertEqual(DisplayMode.fullHD.description, "1920x1080@60")
    }

    func testColorParsing() {
        XCTAssertEqual(RGB(parsing: "#ff8000"), RGB(255, 128, 0))
        XCTAssertEqual(RGB(parsing: "0a0b0c"), RGB(10, 11, 12))
        XCTAssertEqual(RGB(parsing: "#fff"), .white)
        XCTAssertEqual(RGB(parsing: "Black"), .black)
        XCTAssertNil(RGB(parsing: "#12345"))
        XCTAssertNil(RGB(parsing: "purple-ish"))
        XCTAssertEqual(RGB(255, 128, 0).description, "#ff8000")
    }
}
