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
        /// The PDF's Creator or Producer names beamer ("LaTeX with Beamer class").
        public var beamerMark: Bool
        /// The right half of the first page carries text (beamer's notes page always does:
        /// its header, at least).
        public var textOnRight: Bool
        public init(beamerMark: Bool = false, textOnRight: Bool = false) {
            self.beamerMark = beamerMark
            self.textOnRight = textOnRight
        }
    }

    /// The slide shapes beamer makes (its `aspectratio` options 43, 54, 32, 141, 149,
    /// 1610, 169), width : height.
    public static let slideShapes: [Double] = [4.0 / 3, 5.0 / 4, 3.0 / 2, 1.41, 14.0 / 9, 16.0 / 10, 16.0 / 9]
    /// How far (relative) a half may be from a slide shape and still be one.
    public static let shapeTolerance = 0.01

    /// Whether the left half of a page of `shape` is a slide's shape.
    public static func halfIsSlide(_ shape: SourceShape) -> Bool {
        guard shape.height > 0 else { return false }
        let half = shape.width / 2 / shape.height
        return slideShapes.contains { abs(half / $0 - 1) <= shapeTolerance }
    }

    /// What a deck whose pages have these shapes (points) is, on real evidence only (a
    /// banner or a panorama is shown whole). Notes on the right, beamer's default, when
    /// every page is at least twice as wide as a 4:3 slide is tall (width ≥ 2.4 × height)
    /// and either the PDF names beamer as its maker, or every page is two halves of a
    /// slide's shape (`slideShapes`, within 1 %) with text on the first page's right half.
    /// Otherwise none; pages twice as tall are left alone (portrait documents are that
    /// shape too). Other layouts are the presenter's to choose (notes-layout).
    public static func detect(_ shapes: [SourceShape], evidence: Evidence = Evidence()) -> NotesLayout {
        guard !shapes.isEmpty, shapes.allSatisfy({ $0.height > 0 && $0.width / $0.height >= 2.4 }) else { return .none }
        if evidence.beamerMark { return .right }
        if evidence.textOnRight, shapes.allSatisfy(halfIsSlide) { return .right }
        return .none
    }
}
