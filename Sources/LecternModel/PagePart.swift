/// Which part of a PDF page is drawn. Beamer's "notes on second screen" decks
/// (`\setbeameroption{show notes on second screen=right}`) put the slide and its notes
/// side by side on one page twice as wide (or tall): the wall shows only the slide half,
/// the presenter sees the notes half.
public enum PagePart: String, Codable, Hashable, Sendable, CaseIterable {
    case whole, left, right, top, bottom

    /// This part of a page `width`×`height` points, as (x, y, width, height) in points.
    public func region(width: Double, height: Double) -> (x: Double, y: Double, width: Double, height: Double) {
        switch self {
        case .whole: return (0, 0, width, height)
        case .left: return (0, 0, width / 2, height)
        case .right: return (width / 2, 0, width / 2, height)
        case .top: return (0, 0, width, height / 2)
        case .bottom: return (0, height / 2, width, height / 2)
        }
    }

    /// The shape of this part of a page of `shape`.
    public func shape(of shape: SourceShape) -> SourceShape {
        let r = region(width: shape.width, height: shape.height)
        return SourceShape(width: r.width, height: r.height)
    }
}

/// Where a beamer deck keeps its notes: the slide is the other half. `none`: an ordinary deck.
public enum NotesLayout: String, Codable, Hashable, Sendable, CaseIterable {
    case none, right, left, top, bottom

    /// The part of each page the wall shows.
    public var slidePart: PagePart {
        switch self {
        case .none: return .whole
        case .right: return .left
        case .left: return .right
        case .top: return .bottom
        case .bottom: return .top
        }
    }

    /// The part of each page that holds the notes (nil: none).
    public var notesPart: PagePart? {
        switch self {
        case .none: return nil
        case .right: return .right
        case .left: return .left
        case .top: return .top
        case .bottom: return .bottom
        }
    }

    /// What says a deck is beamer's "notes on second screen", beyond its pages' shape.
    public struct Evidence: Equatable, Sendable {
        /// The PDF's Creator or Producer names beamer ("LaTeX with Beamer class", as
        /// beamer sets it through hyperref).
        public var beamerMark: Bool
        public init(beamerMark: Bool = false) { self.beamerMark = beamerMark }
    }

    /// What a deck whose pages have these shapes (points) is, on real evidence only (a
    /// banner or a panorama is shown whole): notes on the right, beamer's default, when
    /// the PDF names beamer as its maker and every page is at least twice as wide as a 4:3
    /// slide is tall (width ≥ 2.4 × height; beamer's own slides are 5:4 to 16:9, so only
    /// its notes pages are that wide). Otherwise none; the width alone is no evidence (4:1
    /// banners, 6.4:1 panoramas, 32:9 pictures). Pages twice as tall are left alone
    /// (portrait documents are that shape too). Other layouts, and decks beamer didn't
    /// make, are the presenter's to choose (notes-layout).
    public static func detect(_ shapes: [SourceShape], evidence: Evidence = Evidence()) -> NotesLayout {
        guard evidence.beamerMark, !shapes.isEmpty, shapes.allSatisfy({ $0.height > 0 && $0.width / $0.height >= 2.4 }) else { return .none }
        return .right
    }
}
