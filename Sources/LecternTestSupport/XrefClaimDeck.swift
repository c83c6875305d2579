import Foundation

/// The hostile upload of issue 25: a valid one-page PDF of about 490 bytes whose
/// cross-reference table has one more line, claiming object 32,999,999 (and a trailer
/// /Size to match). Poppler allocates an entry for every claimed object when it opens the
/// file: 1.3 GB, and an abort when that is refused.
public enum XrefClaimDeck {
    public static let claimedObjects = 33_000_000

    /// Writes the file to `dir/name` and returns its path.
    public static func write(in dir: String, name: String = "xref-claim.pdf", colour: String = "0.2 0.6 0.3") throws -> String {
        var pdf = RawPDF()
        let content = pdf.addStream("", "\(colour) rg 100 100 300 200 re f")
        _ = pdf.addPage("/MediaBox [0 0 600 450] /Contents \(content) 0 R")
        let text = String(decoding: try pdf.data(), as: UTF8.self)
            .replacingOccurrences(
                of: "trailer\n<< /Size ", with: "\(claimedObjects - 1) 1\n0000000000 65535 f\r\ntrailer\n<< /Size \(claimedObjects) /Old ")
        let path = dir + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
