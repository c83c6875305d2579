import Foundation
import LecternModel
import LecternRender
import LecternPipeline
import LecternTestSupport
import XCTest

/// The frame pipeline against poppler's own cairo rendering (`pdftocairo`, the same
/// backend) on PDFs written here in raw syntax: transparency groups (isolated or not,
/// knockout), every blend mode cairo has, soft masks, rotated and cropped pages,
/// annotations and form fields. Each page goes through `Compositor.renderPage` (bars,
/// white sheet, placement) and its content rectangle is compared with
/// `pdftocairo -png -cropbox -scale-to-x W -scale-to-y H` of the same page.
///
/// Bounds: both sides run the same poppler and cairo code at the same size, so a faithful
/// pipeline differs only by rounding (measured: 0 on every case here). The mean bound,
/// 0.5/255 per channel, leaves room for a rounding difference in compositing, while a
/// wrong backdrop (inverted blend, a black knockout or soft-mask area) moves the mean by
/// tens. Because a small wrong area (an annotation, one field) barely moves a mean over
/// the whole page, the share of pixels off by more than 24/255 in any channel (an
/// anti-aliased edge off by a fraction of a pixel stays under it) is bounded too: at most
/// 0.05 % of the content.
///
/// This base class holds the comparison and the shared content; the cases are in
/// `TransparencyFidelityTests` and `PageFidelityTests`.
class FidelityTestCase: XCTestCase {
    var dir = ""
    override func setUp() { dir = Fixtures.tempDir("fidelity") }

    static let meanBound = 0.5
    static let grossLevel = 24
    static let grossShareBound = 0.0005

    // MARK: the comparison

    struct Difference: CustomStringConvertible {
        var mean: Double
        var max: Int
        var grossShare: Double
        var description: String {
            String(format: "mean %.3f/255, max %d/255, %.3f %% of pixels off by more than %d", mean, max, grossShare * 100, FidelityTestCase.grossLevel)
        }
    }

    /// The content rectangle `rect` of `frame` against `reference` (its top-left
    /// `rect.width`×`rect.height`).
    static func difference(_ frame: Frame, _ rect: PixelRect, _ reference: Frame) -> Difference {
        var total = 0, maxDiff = 0, gross = 0
        for y in 0..<rect.height {
            let ra = (frame.baseAddress + (rect.y + y) * frame.stride).assumingMemoryBound(to: UInt32.self)
            let rb = (reference.baseAddress + y * reference.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<rect.width {
                let p = ra[rect.x + x], q = rb[x]
                let dr = abs(Int((p >> 16) & 0xFF) - Int((q >> 16) & 0xFF))
                let dg = abs(Int((p >> 8) & 0xFF) - Int((q >> 8) & 0xFF))
                let db = abs(Int(p & 0xFF) - Int(q & 0xFF))
                total += dr + dg + db
                let m = Swift.max(dr, dg, db)
                maxDiff = Swift.max(maxDiff, m)
                if m > grossLevel { gross += 1 }
            }
        }
        let n = Double(rect.width * rect.height)
        return Difference(mean: Double(total) / (n * 3), max: maxDiff, grossShare: Double(gross) / n)
    }

    /// pdftocairo's render of `page` at `width`×`height`: the crop box (what poppler-glib
    /// shows), rotated by /Rotate (pdftocairo's -scale-to-x/-y name the rotated page's
    /// sides), composited over white by pdftocairo itself.
    func pdftocairo(_ pdf: String, page: Int, width: Int, height: Int, name: String) throws -> Frame {
        let base = dir + "/\(name)-pdftocairo"
        let r = try Fixtures.run(
            "pdftocairo",
            [
                "-png", "-singlefile", "-cropbox", "-f", "\(page)", "-l", "\(page)",
                "-scale-to-x", "\(width)", "-scale-to-y", "\(height)", pdf, base,
            ])
        guard r.status == 0 else { throw Fixtures.ToolError(description: "pdftocairo failed (\(r.status)): \(r.err)") }
        let f = try PNG.read(path: base + ".png")
        // pdftocairo sizes its surface with ceil(points × scale): one pixel more when the
        // product lands a hair above the integer. Never less.
        guard (width...width + 1).contains(f.width), (height...height + 1).contains(f.height) else {
            throw Fixtures.ToolError(description: "pdftocairo made \(f.width)×\(f.height), asked for \(width)×\(height)")
        }
        return f
    }

    /// Renders `page` of `pdf` through the frame pipeline on a `mode` output and compares
    /// its content area with pdftocairo's render; checks the bars too. Returns the
    /// difference (and prints it, so a run shows every case's figures).
    @discardableResult
    func check(
        _ name: String, _ pdf: String, page: Int = 1, mode: (Int, Int) = (960, 600),
        background: RGB = .black, overscan: Double = 0,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Difference {
        let doc = try PDFDocument(path: pdf)
        let settings = Compositor.Settings(width: mode.0, height: mode.1, background: background, overscanPercent: overscan)
        let r = Fit.rect(for: try doc.shape(page: page), width: mode.0, height: mode.1, overscanPercent: overscan)
        let frame = try Compositor.renderPage(doc, page: page, settings: settings)
        try PNG.write(frame, to: dir + "/\(name)-lectern.png")

        let bars = [
            PixelRect(x: 0, y: 0, width: mode.0, height: r.y),
            PixelRect(x: 0, y: r.maxY, width: mode.0, height: mode.1 - r.maxY),
            PixelRect(x: 0, y: r.y, width: r.x, height: r.height),
            PixelRect(x: r.maxX, y: r.y, width: mode.0 - r.maxX, height: r.height),
        ]
        for b in bars where !b.isEmpty {
            XCTAssertTrue(frame.isUniform(b, background), "\(name): bar \(b) not \(background)", file: file, line: line)
        }

        let reference = try pdftocairo(pdf, page: page, width: r.width, height: r.height, name: name)
        let d = Self.difference(frame, r, reference)
        print("fidelity \(name) (\(r)): \(d)  [\(dir)]")
        XCTAssertLessThanOrEqual(d.mean, Self.meanBound, "\(name): \(d) (PNGs in \(dir))", file: file, line: line)
        XCTAssertLessThanOrEqual(d.grossShare, Self.grossShareBound, "\(name): \(d) (PNGs in \(dir))", file: file, line: line)
        return d
    }

    func write(_ pdf: RawPDF, _ name: String) throws -> String {
        let path = dir + "/\(name).pdf"
        try pdf.write(to: path)
        return path
    }

    // MARK: shared content (a 400×300 pt page)

    /// Four coloured stripes over the upper part of the page and a grey band below them,
    /// white paper elsewhere: a backdrop for groups and blend modes to act on.
    static let stripes = """
        0.86 0.12 0.16 rg 20 110 90 170 re f
        0.12 0.67 0.24 rg 110 110 90 170 re f
        0.12 0.24 0.78 rg 200 110 90 170 re f
        0.94 0.78 0.08 rg 290 110 90 170 re f
        0.5 g 20 70 360 30 re f
        """

    static let transparencyGroup = "/Group << /S /Transparency /CS /DeviceRGB >>"
    static func group(isolated: Bool, knockout: Bool) -> String {
        "/Group << /S /Transparency /CS /DeviceRGB /I \(isolated) /K \(knockout) >>"
    }

    /// One page per blend mode: the mode used inside a non-isolated group (over the page's
    /// stripes and paper), inside an isolated group, on a group as a whole, and on a
    /// semi-transparent shape straight on the page.
    func blendPage(_ mode: String, pageGroup: String = "") -> RawPDF {
        var pdf = RawPDF()
        let gs = "/ExtGState << /B << /BM /\(mode) >> /BH << /BM /\(mode) /ca 0.6 >> >>"
        func members(dx: Double) -> String {
            """
            0.95 0.55 0.1 rg \(30 + dx) 230 160 30 re f
            /B gs 0.2 0.7 0.8 rg \(50 + dx) 40 60 230 re f
            /BH gs 0.9 0.3 0.6 rg \(90 + dx) 120 80 130 re f
            """
        }
        let bbox: [Double] = [0, 0, 400, 300]
        let nonIsolated = pdf.addForm(bbox: bbox, resources: gs, extra: Self.group(isolated: false, knockout: false), members(dx: 0))
        let isolated = pdf.addForm(bbox: bbox, resources: gs, extra: Self.group(isolated: true, knockout: false), members(dx: 180))
        let whole = pdf.addForm(
            bbox: bbox, extra: Self.transparencyGroup,
            "0.6 0.2 0.9 rg 140 140 120 60 re f 0.1 0.9 0.5 rg 185 20 30 240 re f")
        let content = pdf.addStream(
            "",
            """
            \(Self.stripes)
            /GN Do
            /GI Do
            q /B gs /GW Do Q
            q /BH gs 0.3 0.55 0.9 rg 30 10 340 80 re f Q
            """)
        _ = pdf.addPage(
            """
            /MediaBox [0 0 400 300] /Contents \(content) 0 R \(pageGroup)
            /Resources << \(gs) /XObject << /GN \(nonIsolated) 0 R /GI \(isolated) 0 R /GW \(whole) 0 R >> >>
            """)
        return pdf
    }
}
