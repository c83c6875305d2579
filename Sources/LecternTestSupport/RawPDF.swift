import Foundation

/// A PDF written object by object in raw PDF syntax, for inputs cairo's PDF surface can't
/// make (knockout groups, blend modes inside groups, soft masks, annotations, form fields).
/// The writer only numbers objects, measures streams and builds a classic cross-reference
/// table whose offsets point at each "N 0 obj"; what goes inside the objects is the
/// caller's PDF.
///
///     var pdf = RawPDF()
///     let content = pdf.addStream("", "1 0 0 rg 10 10 100 100 re f")
///     _ = pdf.addPage("/MediaBox [0 0 200 200] /Contents \(content) 0 R")
///     try pdf.write(to: path)
public struct RawPDF: Sendable {
    /// Object bodies by number (index 0 is number 1); nil for a number reserved but not
    /// yet defined.
    private var bodies: [[UInt8]?] = []
    /// The page tree's number, reserved when the first page is added.
    private var pageTree: Int?
    private var pages: [Int] = []
    /// Entries added to the catalog (an /AcroForm, say).
    public var catalogExtra = ""

    public init() {}

    /// A number for an object defined later with `define` (for references that go both
    /// ways, like a widget and its page).
    public mutating func reserve() -> Int {
        bodies.append(nil)
        return bodies.count
    }

    /// Sets the body of object `number` (what goes between "N 0 obj" and "endobj").
    public mutating func define(_ number: Int, _ body: String) {
        bodies[number - 1] = Array(body.utf8)
    }

    /// Sets object `number` to a stream: `dictionary` holds the entries besides /Length,
    /// which is measured here.
    public mutating func defineStream(_ number: Int, _ dictionary: String, _ content: [UInt8]) {
        var b = Array("<< \(dictionary) /Length \(content.count) >>\nstream\n".utf8)
        b += content
        b += Array("\nendstream".utf8)
        bodies[number - 1] = b
    }

    /// Adds an object and returns its number.
    public mutating func add(_ body: String) -> Int {
        let n = reserve()
        define(n, body)
        return n
    }

    /// Adds a stream object (see `defineStream`) and returns its number.
    public mutating func addStream(_ dictionary: String, _ content: String) -> Int {
        let n = reserve()
        defineStream(n, dictionary, Array(content.utf8))
        return n
    }

    /// Adds a form XObject with `bbox` (llx lly urx ury), `resources` (the dictionary's
    /// inside) and `extra` entries (a /Group, a /Matrix), and returns its number.
    public mutating func addForm(bbox: [Double], resources: String = "", extra: String = "", _ content: String) -> Int {
        addStream("/Type /XObject /Subtype /Form /BBox [\(Self.numbers(bbox))] /Resources << \(resources) >> \(extra)", content)
    }

    /// Adds a page: `dictionary` holds its entries besides /Type and /Parent (/MediaBox,
    /// /Contents, /Resources, /Rotate …). Pages come in the order added.
    public mutating func addPage(_ dictionary: String) -> Int {
        let n = reserve()
        definePage(n, dictionary)
        return n
    }

    /// Defines a reserved number as the next page (for a page its annotations point back to).
    public mutating func definePage(_ number: Int, _ dictionary: String) {
        if pageTree == nil { pageTree = reserve() }
        define(number, "<< /Type /Page /Parent \(pageTree!) 0 R \(dictionary) >>")
        pages.append(number)
    }

    public struct WriteError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The whole file: header, objects, page tree, catalog, cross-reference table, trailer.
    public func data() throws -> Data {
        var pdf = self
        guard let tree = pdf.pageTree, !pdf.pages.isEmpty else { throw WriteError(description: "a PDF needs a page") }
        pdf.define(tree, "<< /Type /Pages /Kids [\(pdf.pages.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pdf.pages.count) >>")
        let catalog = pdf.add("<< /Type /Catalog /Pages \(tree) 0 R \(catalogExtra) >>")
        if let missing = pdf.bodies.firstIndex(where: { $0 == nil }) {
            throw WriteError(description: "object \(missing + 1) reserved but never defined")
        }
        // A binary comment after the header tells transfer programs the file is binary.
        var out: [UInt8] = Array("%PDF-1.7\n".utf8) + [0x25, 0xE2, 0xE3, 0xCF, 0xD3, 0x0A]
        var offsets: [Int] = []
        for (i, body) in pdf.bodies.enumerated() {
            offsets.append(out.count)
            out += Array("\(i + 1) 0 obj\n".utf8) + body! + Array("\nendobj\n".utf8)
        }
        let xref = out.count
        // Each entry is exactly 20 bytes: 10-digit offset, space, 5-digit generation,
        // space, n or f, and a two-byte end of line.
        var table = "xref\n0 \(offsets.count + 1)\n0000000000 65535 f\r\n"
        for o in offsets { table += String(format: "%010d 00000 n\r\n", o) }
        table += "trailer\n<< /Size \(offsets.count + 1) /Root \(catalog) 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        out += Array(table.utf8)
        return Data(out)
    }

    public func write(to path: String) throws {
        try data().write(to: URL(fileURLWithPath: path))
    }

    /// Numbers as PDF writes them: no exponent, no trailing zeros.
    public static func numbers(_ xs: [Double]) -> String {
        xs.map { x in
            if x == x.rounded() { return String(Int(x)) }
            var s = String(format: "%.4f", x)
            while s.hasSuffix("0") { s.removeLast() }
            return s
        }.joined(separator: " ")
    }
}
