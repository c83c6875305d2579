import Foundation
import LecternCore
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
final class RenderFidelityTests: XCTestCase {
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
            String(format: "mean %.3f/255, max %d/255, %.3f %% of pixels off by more than %d", mean, max, grossShare * 100, RenderFidelityTests.grossLevel)
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

    // MARK: groups and blend modes

    static let blendModes = [
        "Normal", "Multiply", "Screen", "Overlay", "Darken", "Lighten", "ColorDodge",
        "ColorBurn", "HardLight", "SoftLight", "Difference", "Exclusion",
        "Hue", "Saturation", "Color", "Luminosity",
    ]

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

    func testBlendModesInGroupsMatchPdftocairo() throws {
        for mode in Self.blendModes {
            try check("blend-\(mode)", write(blendPage(mode), "blend-\(mode)"))
        }
    }

    /// Pages that declare their own transparency group (as presentation and layout
    /// programs write them), isolated or not.
    func testPageTransparencyGroupMatchesPdftocairo() throws {
        for (name, group) in [
            ("page-group", Self.transparencyGroup), ("page-group-nonisolated", Self.group(isolated: false, knockout: false)),
            ("page-group-knockout", Self.group(isolated: true, knockout: true)),
        ] {
            try check(name, write(blendPage("Difference", pageGroup: group), name))
        }
    }

    /// Knockout groups, isolated or not, whose members are semi-transparent and overlap
    /// (each knocks out the ones before it), beside a plain group with the same members.
    func testKnockoutGroupsMatchPdftocairo() throws {
        var pdf = RawPDF()
        let gs = "/ExtGState << /H << /ca 0.6 >> /HB << /ca 0.7 /BM /Multiply >> >>"
        let members = """
            /H gs 0.9 0.1 0.1 rg 30 150 70 80 re f
            0.1 0.8 0.1 rg 60 120 70 80 re f
            /HB gs 0.1 0.2 0.9 rg 45 180 70 80 re f
            """
        let bbox: [Double] = [0, 0, 400, 300]
        let plain = pdf.addForm(bbox: bbox, resources: gs, extra: Self.group(isolated: false, knockout: false), members)
        let knockout = pdf.addForm(bbox: bbox, resources: gs, extra: Self.group(isolated: false, knockout: true), members)
        let isolatedKnockout = pdf.addForm(bbox: bbox, resources: gs, extra: Self.group(isolated: true, knockout: true), members)
        let content = pdf.addStream(
            "",
            """
            \(Self.stripes)
            /P Do
            q 1 0 0 1 120 0 cm /K Do Q
            q 1 0 0 1 240 0 cm /KI Do Q
            q 1 0 0 1 0 -110 cm /K Do Q
            """)
        _ = pdf.addPage(
            """
            /MediaBox [0 0 400 300] /Contents \(content) 0 R
            /Resources << \(gs) /XObject << /P \(plain) 0 R /K \(knockout) 0 R /KI \(isolatedKnockout) 0 R >> >>
            """)
        try check("knockout", write(pdf, "knockout"))
    }

    // MARK: soft masks

    /// A luminosity mask: a grey ramp (an axial shading) clipped to part of the mask
    /// group, the rest taking the backdrop colour /BC (black, then white).
    func testLuminositySoftMaskMatchesPdftocairo() throws {
        var pdf = RawPDF()
        let ramp =
            "/Shading << /R << /ShadingType 2 /ColorSpace /DeviceGray /Coords [20 0 380 0] /Function << /FunctionType 2 /Domain [0 1] /C0 [0] /C1 [1] /N 1 >> /Extend [true true] >> >>"
        let mask = pdf.addForm(
            bbox: [0, 0, 400, 300], resources: ramp, extra: Self.transparencyGroup,
            "q 20 20 360 130 re W n /R sh Q 0.7 g 160 200 80 80 re f")
        let content = pdf.addStream(
            "",
            """
            \(Self.stripes)
            q /M0 gs 0.1 0.3 0.8 rg 20 20 360 250 re f 0.9 0.4 0.1 rg 60 60 100 200 re f Q
            q /M1 gs 0.2 0.6 0.3 rg 300 30 80 240 re f Q
            """)
        _ = pdf.addPage(
            """
            /MediaBox [0 0 400 300] /Contents \(content) 0 R
            /Resources << /ExtGState <<
              /M0 << /SMask << /Type /Mask /S /Luminosity /G \(mask) 0 R >> >>
              /M1 << /SMask << /Type /Mask /S /Luminosity /G \(mask) 0 R /BC [1 1 1] >> >>
            >> >>
            """)
        try check("softmask-luminosity", write(pdf, "softmask-luminosity"))
    }

    /// An alpha mask: squares of three opacities in the mask group.
    func testAlphaSoftMaskMatchesPdftocairo() throws {
        var pdf = RawPDF()
        let mask = pdf.addForm(
            bbox: [0, 0, 400, 300], resources: "/ExtGState << /A3 << /ca 0.3 >> /A7 << /ca 0.7 >> >>",
            extra: Self.transparencyGroup,
            """
            q /A3 gs 0 g 20 40 120 220 re f Q
            q /A7 gs 0 g 140 40 120 220 re f Q
            0 g 260 40 120 220 re f
            """)
        let content = pdf.addStream(
            "",
            """
            \(Self.stripes)
            q /M gs 0.1 0.3 0.8 rg 10 20 380 120 re f 0.9 0.4 0.1 rg 60 100 280 150 re f Q
            """)
        _ = pdf.addPage(
            """
            /MediaBox [0 0 400 300] /Contents \(content) 0 R
            /Resources << /ExtGState << /M << /SMask << /Type /Mask /S /Alpha /G \(mask) 0 R >> >> >> >>
            """)
        try check("softmask-alpha", write(pdf, "softmask-alpha"))
    }

    /// The issue's second case: a knockout group painted under a soft mask, and a knockout
    /// group whose member has its own soft mask. Paper must stay white where nothing is
    /// painted.
    func testKnockoutGroupWithSoftMaskMatchesPdftocairo() throws {
        var pdf = RawPDF()
        let mask = pdf.addForm(
            bbox: [0, 0, 400, 300], extra: Self.transparencyGroup,
            "0.8 g 20 20 180 260 re f 0.3 g 200 20 180 260 re f")
        let masks = "/ExtGState << /M << /SMask << /Type /Mask /S /Luminosity /G \(mask) 0 R >> >> /H << /ca 0.5 >> >>"
        let members = """
            /H gs 0.9 0.1 0.1 rg 40 60 200 120 re f
            0.1 0.2 0.9 rg 160 120 200 120 re f
            """
        let knockout = pdf.addForm(bbox: [0, 0, 400, 300], resources: masks, extra: Self.group(isolated: false, knockout: true), members)
        let maskedMember = pdf.addForm(
            bbox: [0, 0, 400, 300], resources: masks, extra: Self.group(isolated: true, knockout: true),
            """
            0.1 0.7 0.3 rg 40 20 150 90 re f
            q /M gs 0.9 0.6 0.1 rg 100 40 250 60 re f Q
            """)
        let content = pdf.addStream(
            "",
            """
            q /M gs /K Do Q
            /KM Do
            """)
        _ = pdf.addPage(
            """
            /MediaBox [0 0 400 300] /Contents \(content) 0 R
            /Resources << \(masks) /XObject << /K \(knockout) 0 R /KM \(maskedMember) 0 R >> >>
            """)
        try check("knockout-softmask", write(pdf, "knockout-softmask"))
    }

    // MARK: page geometry

    /// Content that shows which way up a page is: stripes, a group with transparency, an
    /// arrow-like corner mark and a line of text.
    static func orientationContent(_ pdf: inout RawPDF) -> (content: Int, resources: String) {
        let multiply = pdf.addForm(
            bbox: [0, 0, 400, 300], resources: "/ExtGState << /H << /ca 0.5 /BM /Multiply >> >>",
            extra: group(isolated: false, knockout: false),
            "/H gs 0.2 0.6 0.9 rg 40 40 200 200 re f")
        let font = pdf.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        let content = pdf.addStream(
            "",
            """
            \(stripes)
            /G Do
            0 0 0 rg 0 300 m 60 300 l 0 240 l f
            BT /F1 28 Tf 0.1 0.1 0.1 rg 40 20 Td (Lectern up) Tj ET
            """)
        return (content, "/Resources << /XObject << /G \(multiply) 0 R >> /Font << /F1 \(font) 0 R >> >>")
    }

    func testRotatedPagesMatchPdftocairo() throws {
        for rotate in [90, 180, 270] {
            var pdf = RawPDF()
            let (content, resources) = Self.orientationContent(&pdf)
            _ = pdf.addPage("/MediaBox [0 0 400 300] /Rotate \(rotate) /Contents \(content) 0 R \(resources)")
            try check("rotate-\(rotate)", write(pdf, "rotate-\(rotate)"))
        }
    }

    /// A crop box inside the media box (off its origin), alone, rotated, and on an output
    /// with overscan and grey bars.
    func testCroppedPagesMatchPdftocairo() throws {
        for (name, extra, overscan) in [("crop", "", 0.0), ("crop-rotate-90", "/Rotate 90", 0.0), ("crop-overscan", "", 4.0)] {
            var pdf = RawPDF()
            let (content, resources) = Self.orientationContent(&pdf)
            _ = pdf.addPage("/MediaBox [0 0 400 300] /CropBox [60 30 340 260] \(extra) /Contents \(content) 0 R \(resources)")
            let path = try write(pdf, name)
            let shape = try PDFDocument(path: path).shape(page: 1)
            let expected = extra.isEmpty ? (280.0, 230.0) : (230.0, 280.0)
            XCTAssertEqual(shape.width, expected.0, name); XCTAssertEqual(shape.height, expected.1, name)
            try check(name, path, background: overscan > 0 ? RGB(64, 64, 64) : .black, overscan: overscan)
        }
    }

    /// A rectangle hanging off the frame's top-left corner: the page is clipped by the
    /// frame's edges, neither moved nor squeezed, and the frame outside the rectangle is
    /// left as it was; a rectangle wholly off the frame draws nothing.
    func testPagePartlyOffTheFrameIsClippedNotMoved() throws {
        let doc = try PDFDocument(path: write(blendPage("Difference"), "off-frame"))
        let whole = Frame(width: 800, height: 600, color: .black)
        try doc.render(page: 1, into: whole, rect: PixelRect(x: 0, y: 0, width: 800, height: 600))
        let background = RGB(1, 2, 3)
        let shifted = Frame(width: 800, height: 600, color: background)
        try doc.render(page: 1, into: shifted, rect: PixelRect(x: -60, y: -40, width: 800, height: 600))
        var moved = 0
        for y in 0..<560 {
            for x in 0..<740 where shifted.pixel(x: x, y: y) != whole.pixel(x: x + 60, y: y + 40) { moved += 1 }
        }
        XCTAssertEqual(moved, 0, "pixels of the clipped page that differ from the whole page's")
        XCTAssertTrue(shifted.isUniform(PixelRect(x: 740, y: 0, width: 60, height: 600), background))
        XCTAssertTrue(shifted.isUniform(PixelRect(x: 0, y: 560, width: 800, height: 40), background))

        let untouched = Frame(width: 200, height: 100, color: background)
        try doc.render(page: 1, into: untouched, rect: PixelRect(x: 200, y: 0, width: 400, height: 300))
        XCTAssertTrue(untouched.isUniform(untouched.bounds, background))
    }

    // MARK: annotations and forms

    /// A square annotation and a stamp, both drawn from their appearance streams (the
    /// stamp's with a blend mode and the annotation's own opacity /CA), and a hidden one
    /// that must not show; one without the Print flag (shown on screen) and one with
    /// NoView (not shown); upright and on a page with /Rotate 90, where one with the
    /// NoRotate flag stays upright.
    func testAnnotationAppearancesMatchPdftocairo() throws {
        for rotate in [0, 90] {
            try check("annotations-rotate-\(rotate)", write(Self.annotationPDF(rotate: rotate), "annotations-rotate-\(rotate)"))
        }
    }

    static func annotationPDF(rotate: Int) -> RawPDF {
        var pdf = RawPDF()
        let square = pdf.addForm(
            bbox: [0, 0, 150, 100], resources: "/ExtGState << /H << /ca 0.5 >> >>",
            """
            1 0 0 RG 4 w 2 2 146 96 re S
            q /H gs 1 0.9 0 rg 10 10 130 80 re f Q
            """)
        let stamp = pdf.addForm(
            bbox: [0, 0, 120, 60], resources: "/ExtGState << /M << /BM /Multiply >> >>",
            """
            /M gs 0.2 0.5 0.9 rg 0 0 120 60 re f
            0.9 0.2 0.2 rg 10 10 100 40 re f
            """)
        let hidden = pdf.addForm(bbox: [0, 0, 50, 50], "0 0 0 rg 0 0 50 50 re f")
        let noRotate = pdf.addForm(bbox: [0, 0, 50, 50], "0.6 0 0.6 rg 0 0 50 25 re f 0 0.6 0.6 rg 0 25 25 25 re f")
        let page = pdf.reserve()
        let annots = [
            pdf.add("<< /Type /Annot /Subtype /Square /Rect [40 150 190 250] /F 4 /C [1 0 0] /P \(page) 0 R /AP << /N \(square) 0 R >> >>"),
            pdf.add("<< /Type /Annot /Subtype /Stamp /Rect [150 90 330 180] /F 4 /CA 0.7 /P \(page) 0 R /AP << /N \(stamp) 0 R >> >>"),
            pdf.add("<< /Type /Annot /Subtype /Square /Rect [300 220 350 270] /F 2 /P \(page) 0 R /AP << /N \(hidden) 0 R >> >>"),
            pdf.add("<< /Type /Annot /Subtype /Square /Rect [300 20 350 70] /F 20 /P \(page) 0 R /AP << /N \(noRotate) 0 R >> >>"),
            // On screen, not on paper (no Print flag), and on paper, not on screen (NoView):
            // what sets display rendering apart from poppler_page_render_for_printing.
            pdf.add("<< /Type /Annot /Subtype /Square /Rect [220 20 270 70] /F 0 /P \(page) 0 R /AP << /N \(noRotate) 0 R >> >>"),
            pdf.add("<< /Type /Annot /Subtype /Square /Rect [220 220 270 270] /F 36 /P \(page) 0 R /AP << /N \(hidden) 0 R >> >>"),
        ]
        let content = pdf.addStream("", stripes)
        pdf.definePage(page, "/MediaBox [0 0 400 300] /Rotate \(rotate) /Contents \(content) 0 R /Annots [\(annots.map { "\($0) 0 R" }.joined(separator: " "))]")
        return pdf
    }

    /// An AcroForm with a filled text field, a checked and an unchecked check box, each
    /// widget drawn from its appearance stream.
    func testFormFieldsMatchPdftocairo() throws {
        for rotate in [0, 270] {
            try check("form-rotate-\(rotate)", write(Self.formPDF(rotate: rotate), "form-rotate-\(rotate)"))
        }
    }

    static func formPDF(rotate: Int = 0) -> RawPDF {
        var pdf = RawPDF()
        let helv = pdf.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        let text = pdf.addForm(
            bbox: [0, 0, 200, 30], resources: "/Font << /Helv \(helv) 0 R >>",
            """
            0.9 0.95 1 rg 0 0 200 30 re f
            0 0 0.5 RG 1 w 0.5 0.5 199 29 re S
            /Tx BMC q 1 1 198 28 re W n BT /Helv 14 Tf 0 0 0.6 rg 4 9 Td (Lectern 2026) Tj ET Q EMC
            """)
        let on = pdf.addForm(
            bbox: [0, 0, 24, 24],
            """
            1 1 1 rg 0 0 24 24 re f 0 g 1 w 0.5 0.5 23 23 re S
            0.1 0.5 0.1 RG 3 w 5 12 m 10 6 l 19 19 l S
            """)
        let off = pdf.addForm(bbox: [0, 0, 24, 24], "1 1 1 rg 0 0 24 24 re f 0 g 1 w 0.5 0.5 23 23 re S")
        let page = pdf.reserve()
        let field = pdf.add(
            """
            << /Type /Annot /Subtype /Widget /FT /Tx /T (title) /V (Lectern 2026) /F 4 /Rect [40 200 240 230]
               /DA (/Helv 14 Tf 0 0 0.6 rg) /MK << /BG [0.9 0.95 1] /BC [0 0 0.5] >> /P \(page) 0 R /AP << /N \(text) 0 R >> >>
            """)
        let checked = pdf.add(
            """
            << /Type /Annot /Subtype /Widget /FT /Btn /T (agree) /V /Yes /AS /Yes /F 4 /Rect [40 150 64 174]
               /P \(page) 0 R /AP << /N << /Yes \(on) 0 R /Off \(off) 0 R >> >> >>
            """)
        let unchecked = pdf.add(
            """
            << /Type /Annot /Subtype /Widget /FT /Btn /T (decline) /V /Off /AS /Off /F 4 /Rect [80 150 104 174]
               /P \(page) 0 R /AP << /N << /Yes \(on) 0 R /Off \(off) 0 R >> >> >>
            """)
        let content = pdf.addStream("", "0.94 0.78 0.08 rg 20 20 360 100 re f 0.2 0.2 0.2 rg 20 260 360 20 re f")
        pdf.definePage(page, "/MediaBox [0 0 400 300] /Rotate \(rotate) /Contents \(content) 0 R /Annots [\(field) 0 R \(checked) 0 R \(unchecked) 0 R]")
        pdf.catalogExtra = "/AcroForm << /Fields [\(field) 0 R \(checked) 0 R \(unchecked) 0 R] /DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv \(helv) 0 R >> >> >>"
        return pdf
    }

    // MARK: a real deck

    /// Every page of the shipped demo deck (text and boxes, written by cairo) at the
    /// projector's 1920×1080, with the frame's default black bars.
    func testDemoDeckMatchesPdftocairo() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let deck = root.appendingPathComponent("board/demo/demo-deck.pdf").path
        let pages = try PDFDocument(path: deck).pageCount
        XCTAssertGreaterThan(pages, 1)
        for page in 1...pages {
            try check("demo-\(page)", deck, page: page, mode: (1920, 1080))
        }
    }

    // MARK: the writer

    /// Every cross-reference entry points at its "N 0 obj", and qpdf finds nothing to
    /// repair (poppler would silently rebuild a broken table, hiding a writer bug).
    func testRawPDFCrossReferenceIsExact() throws {
        for (name, pdf) in [("form", Self.formPDF()), ("blend", blendPage("Difference"))] {
            let data = try pdf.data()
            let path = try write(pdf, "xref-\(name)")
            let bytes = [UInt8](data)
            let text = String(decoding: bytes, as: UTF8.self)
            guard let startxref = text.range(of: "startxref\n", options: .backwards) else { return XCTFail("\(name): no startxref") }
            let xrefAt = Int(text[startxref.upperBound...].prefix { $0.isNumber })!
            XCTAssertEqual(Array(bytes[xrefAt..<(xrefAt + 5)]), Array("xref\n".utf8), "\(name): startxref")
            // Lines split on LF bytes (a String would keep CR LF together as one character).
            let table = bytes[xrefAt...].split(separator: 0x0A, omittingEmptySubsequences: false)
            guard let count = Int(String(decoding: table[1], as: UTF8.self).split(separator: " ").last ?? "") else {
                return XCTFail("\(name): no subsection header")
            }
            for n in 1..<count {
                let entry = table[table.startIndex + 2 + n]
                XCTAssertEqual(entry.count + 1, 20, "\(name): entry \(n) is 20 bytes")
                XCTAssertEqual(entry.last, 0x0D, "\(name): entry \(n) ends in CR LF")
                guard let offset = Int(String(decoding: entry.prefix(10), as: UTF8.self)), offset < bytes.count - 10 else {
                    return XCTFail("\(name): entry \(n) has no offset")
                }
                let expected = Array("\(n) 0 obj".utf8)
                XCTAssertEqual(Array(bytes[offset..<(offset + expected.count)]), expected, "\(name): object \(n) at \(offset)")
            }
            let check = try Fixtures.run("qpdf", ["--check", path])
            XCTAssertEqual(check.status, 0, "\(name): qpdf --check: \(String(decoding: check.out, as: UTF8.self)) \(check.err)")
            XCTAssertTrue(String(decoding: check.out, as: UTF8.self).contains("No syntax or stream encoding errors"), name)
        }
    }
}
