/// A wall of several panes as the meeting record keeps it (docs/protocol.md §26.1): one
/// record page with every pane at its place, as the wall showed it. The room makes it
/// (`MeetingRecord`), the record worker draws it (`RecordJob.Page.wall`).
public struct RecordWall: Codable, Equatable, Sendable {
    /// What one pane showed.
    public enum Pane: Codable, Equatable, Sendable {
        /// A deck's page (or a whiteboard: `Whiteboard.whiteHex`/`blackHex`), the part the
        /// wall shows, and the finished strokes it had when the wall changed.
        case page(content: String, name: String, page: Int, part: PagePart, strokes: [InkStroke])
        /// A clip: drawn as its first frame (its poster), fitted in the pane.
        case clip(content: String, name: String)
        /// Blanked, black or white.
        case blank(white: Bool)
        /// Nothing (the idle pane): the background.
        case empty

        /// The same pane without its ink (what the wall shows before ink is counted).
        public var withoutStrokes: Pane {
            if case .page(let c, let n, let p, let part, _) = self { return .page(content: c, name: n, page: p, part: part, strokes: []) }
            return self
        }

        /// The content it shows (deck, whiteboard or clip), if any.
        public var content: String? {
            switch self {
            case .page(let c, _, _, _, _), .clip(let c, _): return c
            case .blank, .empty: return nil
            }
        }
    }

    public var layout: WallLayout
    /// The output's size when the wall was shown (its shape is the record page's).
    public var width: Int
    public var height: Int
    /// One entry per pane, in the layout's pane order.
    public var panes: [Pane]
    /// Who drove each pane (nil: nobody), for the cover's "who presented what".
    public var drivers: [String?]

    public init(layout: WallLayout, width: Int, height: Int, panes: [Pane], drivers: [String?]) {
        self.layout = layout
        self.width = width
        self.height = height
        self.panes = panes
        self.drivers = drivers
    }

    public var withoutStrokes: RecordWall {
        var w = self
        w.panes = panes.map(\.withoutStrokes)
        return w
    }

    /// Ink points in all its panes.
    public var points: Int {
        panes.reduce(0) { n, p in
            if case .page(_, _, _, _, let s) = p { return n + s.reduce(0) { $0 + $1.points.count } }
            return n
        }
    }

    /// Where each pane sits on a record page of `width`×`height` points, and the output's
    /// pixels it stands for: the wall's own pane rectangles (`WallLayout.paneRects`, in the
    /// output's pixels, inside the safe area), scaled to the page.
    public func paneRects(overscanPercent: Double) -> [PixelRect] {
        layout.paneRects(width: max(1, width), height: max(1, height), overscanPercent: overscanPercent)
    }
}
