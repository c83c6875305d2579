import LecternModel
import LecternRender

/// PDF decks drawn with cairo (PDFSketch): the pages the pixel tests know.
extension Fixtures {
    /// Colours the fixture pages use, away from black and white so bars and paper can't be
    /// confused with content.
    public static let red = RGB(220, 30, 40), green = RGB(30, 170, 60), blue = RGB(30, 60, 200),
        yellow = RGB(240, 200, 20)

    /// A page with a coloured box in each quadrant corner, each 30 % of the page, and a thin
    /// gap of white paper around them.
    public static func quadrantPage(width: Double, height: Double, rotate: Int = 0) -> PDFSketch.Page {
        PDFSketch.Page(
            width: width, height: height,
            boxes: [
                .init(x: 0.1, y: 0.1, width: 0.3, height: 0.3, color: red),
                .init(x: 0.6, y: 0.1, width: 0.3, height: 0.3, color: green),
                .init(x: 0.1, y: 0.6, width: 0.3, height: 0.3, color: blue),
                .init(x: 0.6, y: 0.6, width: 0.3, height: 0.3, color: yellow),
            ], rotate: rotate)
    }

    /// Writes a PDF of `pages` into `dir` and returns its path.
    public static func pdf(_ pages: [PDFSketch.Page], in dir: String, name: String = "deck.pdf", creator: String? = nil) throws -> String {
        let path = dir + "/" + name
        try PDFSketch.write(pages, to: path, creator: creator)
        return path
    }

    /// A deck of `count` 4:3 pages, page n has a box whose width grows with n and the page number as text.
    public static func numberedDeck(count: Int, in dir: String, name: String = "numbered.pdf") throws -> String {
        let pages = (1...count).map { n in
            PDFSketch.Page(
                width: 720, height: 540,
                boxes: [
                    .init(x: 0.05, y: 0.05, width: 0.9 * Double(n) / Double(count), height: 0.1, color: blue)
                ], texts: [.init("Page \(n)", x: 0.1, y: 0.4, size: 0.15, bold: true)])
        }
        return try pdf(pages, in: dir, name: name)
    }
}
