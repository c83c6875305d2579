import Foundation

/// The office formats LibreOffice converts here (docs/protocol.md §30.1), recognised by
/// their content: an ODF zip by its `mimetype` part, an OOXML zip by its main part, a
/// Keynote package by its index, an OLE2 compound file (Word 97–2003, PowerPoint, Excel)
/// by the name of its main stream, RTF by its signature. The name's extension plays no
/// part, except to name an OLE2 file whose stream names can't be found.
public enum OfficeFormats {
    public static let pptx = SourceFormat("pptx", "PowerPoint presentations", presentation: true)
    public static let ppt = SourceFormat("ppt", "PowerPoint 97–2003 presentations", presentation: true)
    public static let odp = SourceFormat("odp", "OpenDocument presentations", presentation: true)
    public static let key = SourceFormat("key", "Keynote presentations", presentation: true)
    public static let docx = SourceFormat("docx", "Word documents")
    public static let doc = SourceFormat("doc", "Word 97–2003 documents")
    public static let odt = SourceFormat("odt", "OpenDocument text documents")
    public static let rtf = SourceFormat("rtf", "RTF documents")
    public static let xlsx = SourceFormat("xlsx", "Excel spreadsheets")
    public static let xls = SourceFormat("xls", "Excel 97–2003 spreadsheets")
    public static let ods = SourceFormat("ods", "OpenDocument spreadsheets")
    public static let all = [pptx, ppt, odp, key, docx, doc, odt, rtf, xlsx, xls, ods]

    /// The office format of `file`, or nil.
    public static func detect(_ file: FileSniff) -> SourceFormat? {
        if file.has("{\\rtf") { return rtf }
        if file.has([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) { return file.path.flatMap { detectCompound(path: $0, file: file) } }
        guard file.isZip else { return nil }
        if let mime = odfMimetype(file) {
            switch mime {
            case "application/vnd.oasis.opendocument.presentation": return odp
            case "application/vnd.oasis.opendocument.text": return odt
            case "application/vnd.oasis.opendocument.spreadsheet": return ods
            default: return nil
            }
        }
        if file.hasZipEntry("[Content_Types].xml") {
            if file.hasZipEntry("ppt/presentation.xml") { return pptx }
            if file.hasZipEntry("word/document.xml") { return docx }
            if file.hasZipEntry("xl/workbook.xml") { return xlsx }
            return nil
        }
        if file.zipEntries?.contains(where: { $0.name.hasSuffix("Index/Document.iwa") || $0.name.hasSuffix("index.apxl") }) == true { return key }
        return nil
    }

    /// An OLE2 compound file's format, by its main stream's name (UTF-16 in its directory),
    /// read a piece at a time: "PowerPoint Document", "WordDocument", "Workbook"/"Book".
    public static func detectCompound(path: String, file: FileSniff) -> SourceFormat? {
        guard file.has([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]), let h = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? h.close() }
        let streams: [(String, SourceFormat)] = [("PowerPoint Document", ppt), ("WordDocument", doc), ("Workbook", xls), ("Book", xls)]
        let patterns = streams.map { (name, format) in (Data(name.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }), format) }
        var carry = Data()
        while let piece = try? h.read(upToCount: 1 << 20), !piece.isEmpty {
            let window = carry + piece
            for (p, format) in patterns where window.range(of: p) != nil { return format }
            carry = window.suffix(64)
        }
        return nil
    }

    /// An ODF package's media type: its first part is `mimetype`, stored uncompressed,
    /// its content the type (the local header gives its length).
    static func odfMimetype(_ file: FileSniff) -> String? {
        let h = file.head
        guard file.has("mimetype", at: 30), h.count > 46 else { return nil }
        let length = Int(h[18]) | Int(h[19]) << 8 | Int(h[20]) << 16 | Int(h[21]) << 24
        let start = 38 + (Int(h[28]) | Int(h[29]) << 8)
        guard length > 0, length <= 100, h.count >= start + length else { return nil }
        return String(decoding: h[start..<start + length], as: UTF8.self)
    }
}
