import CPangoCairo
import CPoppler
import Foundation
import LecternModel

/// Writes simple PDFs with cairo's PDF surface: coloured boxes and text on pages of any
/// size and `/Rotate`. Tests make their inputs with it; the demo deck is made with it.
public enum PDFSketch {
    public struct Box: Sendable {
        /// Position and size as fractions of the (unrotated) page, origin top left.
        public var x, y, width, height: Double
        public var color: RGB
        public init(x: Double, y: Double, width: Double, height: Double, color: RGB) {
            self.x = x; self.y = y; self.width = width; self.height = height; self.color = color
        }
    }

    public struct Text: Sendable {
        public var string: String
        /// Fractions of the page; `size` a fraction of the page height.
        public var x, y, size: Double
        public var color: RGB
        public var bold: Bool
        public init(_ string: String, x: Double, y: Double, size: Double, color: RGB = .black, bold: Bool = false) {
            self.string = string; self.x = x; self.y = y; self.size = size; self.color = color; self.bold = bold
        }
    }

    public struct Page: Sendable {
        /// In points (1/72 in).
        public var width, height: Double
        public var background: RGB?
        public var boxes: [Box]
        public var texts: [Text]
        /// Written as the page's /Rotate.
        public var rotate: Int
        /// Written as the page's label (`/PageLabels`), when set.
        public var label: String?
        public init(
            width: Double, height: Double, background: RGB? = nil, boxes: [Box] = [],
            texts: [Text] = [], rotate: Int = 0, label: String? = nil
        ) {
            self.width = width; self.height = height; self.background = background
            self.boxes = boxes; self.texts = texts; self.rotate = rotate; self.label = label
        }
    }

    public struct WriteError: Error, CustomStringConvertible { public let description: String }

    /// `creator`: the document's Creator (Info dictionary), as a maker writes it.
    public static func write(_ pages: [Page], to path: String, creator: String? = nil) throws {
        guard let first = pages.first else { throw WriteError(description: "no pages") }
        guard let surface = cairo_pdf_surface_create(path, first.width, first.height) else {
            throw WriteError(description: "can't create \(path)")
        }
        if let creator { cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, creator) }
        let cr = cairo_create(surface)!
        for page in pages {
            cairo_pdf_surface_set_size(surface, page.width, page.height)
            if let bg = page.background {
                setColor(cr, bg)
                cairo_rectangle(cr, 0, 0, page.width, page.height)
                cairo_fill(cr)
            }
            for b in page.boxes {
                setColor(cr, b.color)
                cairo_rectangle(cr, b.x * page.width, b.y * page.height, b.width * page.width, b.height * page.height)
                cairo_fill(cr)
            }
            for t in page.texts {
                setColor(cr, t.color)
                IdleScreen.text(
                    cr, t.string, bold: t.bold, size: t.size * page.height,
                    x: t.x * page.width, y: t.y * page.height, width: page.width * (1 - 2 * t.x))
            }
            cairo_show_page(cr)
        }
        cairo_destroy(cr)
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        cairo_surface_destroy(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw WriteError(description: String(cString: cairo_status_to_string(status)))
        }
        let rotations = pages.map(\.rotate)
        if rotations.contains(where: { $0 % 360 != 0 }) {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            try PDFRotate.apply(rotations, to: data).write(to: URL(fileURLWithPath: path))
        }
        if pages.contains(where: { $0.label != nil }) {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            try PDFPageLabels.append(pages.enumerated().map { $1.label ?? String($0 + 1) }, to: data).write(to: URL(fileURLWithPath: path))
        }
    }

    private static func setColor(_ cr: OpaquePointer, _ c: RGB) {
        cairo_set_source_rgb(cr, Double(c.r) / 255, Double(c.g) / 255, Double(c.b) / 255)
    }
}

/// Adds `/Rotate` entries to the page objects of a classic-xref PDF (what cairo writes) and
/// rebuilds the cross-reference table so the file stays valid. Works on bytes: content
/// streams are binary.
enum PDFRotate {
    static func apply(_ rotations: [Int], to data: Data) throws -> Data {
        var bytes = [UInt8](data)
        // Page objects in file order are the pages in order in cairo's output:
        // "<< /Type /Page" followed by a space, a newline or "%" (not "/Pages").
        let marker = Array("/Type /Page".utf8)
        var i = 0, pageIndex = 0
        while let at = find(marker, in: bytes, from: i) {
            let after = at + marker.count
            i = after
            guard after < bytes.count, bytes[after] != UInt8(ascii: "s") else { continue }
            if pageIndex < rotations.count, rotations[pageIndex] % 360 != 0 {
                let insert = Array(" /Rotate \(rotations[pageIndex]) ".utf8)
                bytes.insert(contentsOf: insert, at: after)
                i = after + insert.count
            }
            pageIndex += 1
        }
        // Rebuild the xref table from the "N 0 obj" offsets.
        guard let xrefAt = findLast(Array("\nxref\n".utf8), in: bytes) else {
            throw PDFSketch.WriteError(description: "no xref table")
        }
        let body = Array(bytes[..<(xrefAt + 1)])
        var offsets: [Int: Int] = [:]
        let obj = Array(" 0 obj".utf8)
        for j in 0..<body.count where j == 0 || body[j - 1] == 0x0A {
            var k = j, num = 0, digits = 0
            while k < body.count, body[k] >= 0x30, body[k] <= 0x39 { num = num * 10 + Int(body[k] - 0x30); k += 1; digits += 1 }
            if digits > 0, k + obj.count <= body.count, Array(body[k..<(k + obj.count)]) == obj { offsets[num] = j }
        }
        let count = (offsets.keys.max() ?? 0) + 1
        var xref = "xref\n0 \(count)\n0000000000 65535 f \n"
        for n in 1..<count {
            if let o = offsets[n] { xref += String(format: "%010d 00000 n \n", o) } else { xref += "0000000000 65535 f \n" }
        }
        guard let trailerAt = find(Array("trailer".utf8), in: bytes, from: xrefAt),
            let startxrefAt = find(Array("startxref".utf8), in: bytes, from: trailerAt)
        else {
            throw PDFSketch.WriteError(description: "no trailer")
        }
        let trailer = Array(bytes[trailerAt..<startxrefAt])
        return Data(body + Array(xref.utf8) + trailer + Array("startxref\n\(body.count)\n%%EOF\n".utf8))
    }

    static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard needle.count <= hay.count else { return nil }
        var i = from
        while i + needle.count <= hay.count {
            if hay[i] == needle[0], Array(hay[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }

    static func findLast(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
        var i = hay.count - needle.count
        while i >= 0 {
            if hay[i] == needle[0], Array(hay[i..<(i + needle.count)]) == needle { return i }
            i -= 1
        }
        return nil
    }
}

/// Gives a PDF written by cairo page labels, one `/P` prefix per page (as hyperref writes
/// them for beamer), in an incremental update: a new page-label tree and catalog after
/// the file's end. (cairo 1.16's own `cairo_pdf_surface_set_page_label` writes a broken
/// number tree for numeric labels.)
enum PDFPageLabels {
    static func append(_ labels: [String], to data: Data) throws -> Data {
        let text = String(decoding: data, as: UTF8.self)
        func number(after key: String, in s: Substring) -> Int? {
            guard let r = s.range(of: key) else { return nil }
            return Int(s[r.upperBound...].drop { $0 == " " || $0 == "\n" }.prefix { $0.isNumber })
        }
        guard let catalogAt = text.range(of: "/Type /Catalog"),
            let objStart = text[..<catalogAt.lowerBound].range(of: " 0 obj", options: .backwards),
            let catalogNumber = Int(text[..<objStart.lowerBound].reversed().prefix { $0.isNumber }.reversed().map(String.init).joined()),
            let pagesNumber = number(after: "/Pages", in: text[catalogAt.upperBound...]),
            let sizeNumber = number(after: "/Size", in: text[...]),
            let prevXref = number(after: "startxref", in: text[text.index(text.endIndex, offsetBy: -40)...])
        else { throw PDFSketch.WriteError(description: "can't find the catalog, /Size or startxref to add page labels") }
        let info = number(after: "/Info", in: text[...])
        func escaped(_ s: String) -> String {
            s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "(", with: "\\(").replacingOccurrences(of: ")", with: "\\)")
        }
        var out = [UInt8](data)
        if out.last != 0x0A { out.append(0x0A) }
        let labelsNumber = sizeNumber
        let labelsAt = out.count
        out += Array("\(labelsNumber) 0 obj\n<< /Nums [\(labels.enumerated().map { "\($0) << /P (\(escaped($1))) >>" }.joined(separator: " "))] >>\nendobj\n".utf8)
        let catalogOffset = out.count
        out += Array("\(catalogNumber) 0 obj\n<< /Type /Catalog /Pages \(pagesNumber) 0 R /PageLabels \(labelsNumber) 0 R >>\nendobj\n".utf8)
        let xrefAt = out.count
        func entry(_ offset: Int) -> String { String(format: "%010d 00000 n \n", offset) }
        out += Array("xref\n0 1\n0000000000 65535 f \n\(catalogNumber) 1\n\(entry(catalogOffset))\(labelsNumber) 1\n\(entry(labelsAt))".utf8)
        out += Array(
            "trailer\n<< /Size \(labelsNumber + 1) /Root \(catalogNumber) 0 R\(info.map { " /Info \($0) 0 R" } ?? "") /Prev \(prevXref) >>\nstartxref\n\(xrefAt)\n%%EOF\n".utf8)
        return Data(out)
    }
}
