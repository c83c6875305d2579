import Foundation
import LecternModel
import LecternRender

/// Decks the presenter-console tests present: beamer "notes on second screen" decks drawn
/// with cairo, with page labels (repeated for overlays), and a PDF with text annotations.
extension Fixtures {
    /// A beamer deck with notes on the right: every page 2 × 640×480 points wide; the slide
    /// half is red with a green box that grows with the page number, the notes half blue
    /// with "Notes n". `labels` gives each page's label (and the number of pages). Its
    /// Creator is beamer's, as LaTeX writes it (the evidence the service goes by, §20.3).
    public static func beamerNotesDeck(labels: [String], in dir: String, name: String = "beamer.pdf") throws -> String {
        let pages = labels.enumerated().map { i, label in
            let n = Double(i + 1) / Double(labels.count)
            return PDFSketch.Page(
                width: 1280, height: 480,
                boxes: [
                    .init(x: 0, y: 0, width: 0.5, height: 1, color: red),
                    .init(x: 0.05, y: 0.1, width: 0.4 * n, height: 0.2, color: green),
                    .init(x: 0.5, y: 0, width: 0.5, height: 1, color: blue),
                ],
                texts: [.init("Notes \(i + 1)", x: 0.55, y: 0.5, size: 0.08, color: .white)],
                label: label)
        }
        return try pdf(pages, in: dir, name: name, creator: beamerCreator)
    }

    /// What beamer writes as a deck's Creator (through hyperref).
    public static let beamerCreator = "LaTeX with Beamer class version 3.71"

    /// A plain 4:3 deck with page labels (numbered pages as `numberedDeck`).
    public static func labelledDeck(labels: [String], in dir: String, name: String = "labelled.pdf") throws -> String {
        let pages = labels.enumerated().map { i, label in
            PDFSketch.Page(
                width: 720, height: 540,
                boxes: [.init(x: 0.05, y: 0.05, width: 0.9 * Double(i + 1) / Double(labels.count), height: 0.1, color: blue)],
                texts: [.init("Page \(i + 1)", x: 0.1, y: 0.4, size: 0.15, bold: true)], label: label)
        }
        return try pdf(pages, in: dir, name: name)
    }

    /// A two-page PDF whose first page carries two text annotations (sticky notes) and a
    /// link annotation (not a note), the second none.
    public static func annotatedDeck(in dir: String, notes: [String], name: String = "annotated.pdf") throws -> String {
        var pdf = RawPDF()
        let content = pdf.addStream("", "0 0 1 rg 50 50 200 100 re f")
        var annots: [Int] = []
        for (i, n) in notes.enumerated() {
            annots.append(pdf.add("<< /Type /Annot /Subtype /Text /Rect [\(10 + 30 * i) 10 \(30 + 30 * i) 30] /Contents (\(n)) >>"))
        }
        annots.append(pdf.add("<< /Type /Annot /Subtype /Link /Rect [100 100 200 120] /Contents (not a note) /A << /S /URI /URI (https://example.org) >> >>"))
        _ = pdf.addPage("/MediaBox [0 0 400 300] /Contents \(content) 0 R /Annots [\(annots.map { "\($0) 0 R" }.joined(separator: " "))]")
        _ = pdf.addPage("/MediaBox [0 0 400 300] /Contents \(content) 0 R")
        let path = dir + "/" + name
        try pdf.write(to: path)
        return path
    }
}
