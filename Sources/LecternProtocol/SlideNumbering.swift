/// Slide numbers as people think of them, from the PDF's page labels: consecutive pages
/// with the same label are one slide shown in steps (beamer's overlays), as pdfpc groups
/// them. "slide 7 of 20, step 2 of 3". Pure.
public struct SlideNumbering: Equatable, Sendable {
    /// One label per page, page 1 first.
    public let labels: [String]
    /// For each page (0-based): its slide (0-based).
    private let slideOfPage: [Int]
    /// For each slide: its first page (0-based) and its number of pages.
    private let slides: [(first: Int, count: Int)]

    public init(labels: [String]) {
        self.labels = labels
        var slideOf: [Int] = []
        var slides: [(Int, Int)] = []
        for (i, l) in labels.enumerated() {
            if i > 0, l == labels[i - 1] {
                slides[slides.count - 1].1 += 1
            } else {
                slides.append((i, 1))
            }
            slideOf.append(slides.count - 1)
        }
        self.slideOfPage = slideOf
        self.slides = slides
    }

    public static func == (a: SlideNumbering, b: SlideNumbering) -> Bool { a.labels == b.labels }

    public var pageCount: Int { labels.count }
    public var slideCount: Int { slides.count }

    /// Page `page` (1-based) as a slide and step; nil outside the deck.
    public func slide(ofPage page: Int) -> SlideSnapshot? {
        guard page >= 1, page <= labels.count else { return nil }
        let s = slideOfPage[page - 1]
        let g = slides[s]
        return SlideSnapshot(label: labels[page - 1], index: s + 1, count: slides.count, step: page - g.first, steps: g.count)
    }

    /// The first page (1-based) of slide `slide` (1-based); nil outside the deck.
    public func firstPage(ofSlide slide: Int) -> Int? {
        guard slide >= 1, slide <= slides.count else { return nil }
        return slides[slide - 1].first + 1
    }

    /// The first page (1-based) of the slide labelled `label`: an exact label first, then
    /// one that differs only in case and surrounding blanks; nil when none is.
    public func page(forLabel label: String) -> Int? {
        if let i = labels.firstIndex(of: label) { return i + 1 }
        let wanted = label.trimmingBlanks.lowercased()
        guard !wanted.isEmpty else { return nil }
        return labels.firstIndex { $0.trimmingBlanks.lowercased() == wanted }.map { $0 + 1 }
    }

    /// The first page (1-based) of the slide page `page` belongs to.
    public func firstPageOfSlide(containing page: Int) -> Int {
        guard page >= 1, page <= labels.count else { return page }
        return slides[slideOfPage[page - 1]].first + 1
    }
}

extension String {
    var trimmingBlanks: Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}
