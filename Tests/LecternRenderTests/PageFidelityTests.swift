import Foundation
import LecternModel
import LecternRender
import LecternPipeline
import LecternTestSupport
import XCTest

/// Rotated and cropped pages, annotations, form fields, a real deck, and the raw PDF
/// writer itself: the frame pipeline against pdftocairo (see `FidelityTestCase`).
final class PageFidelityTests: FidelityTestCase {
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
