/// What the record worker (`lecternd --record-worker`) is asked to draw into one PDF
/// (docs/protocol.md §26): the cover's facts and the record's pages in order. Made by the
/// room (content ids), completed by the service with the files' paths, sent to the worker
/// as JSON on its standard input.
public struct RecordJob: Codable, Equatable, Sendable {
    public enum Page: Codable, Equatable, Sendable {
        /// A deck's page (from 1), the part the wall shows, and the ink it had.
        case deck(content: String, name: String, page: Int, part: PagePart, strokes: [InkStroke])
        /// A whiteboard page with its ink.
        case whiteboard(black: Bool, name: String, strokes: [InkStroke])
        /// A poll's results as the wall showed them.
        case card(WallCard)
        /// A clip: its first frame, name and duration (seconds).
        case clip(content: String, name: String, duration: Double)
        /// A wall of several panes as it looked, every pane at its place.
        case wall(RecordWall)
        /// A live share: who shared what, from when, how long (seconds), and its pictures at
        /// the start and the end (JPEG files; nil or missing: none was taken).
        case share(name: String, source: String, at: Double, duration: Double, start: String?, end: String?)
    }

    public struct Presenter: Codable, Equatable, Sendable {
        public var name: String
        public var shown: [String]
        public init(name: String, shown: [String]) {
            self.name = name
            self.shown = shown
        }
    }

    public var room: String
    /// When the meeting's first page was shown and when the record was asked for (wall-clock seconds since 1970).
    public var startedAt: Double
    public var madeAt: Double
    public var presenters: [Presenter]
    /// Pages the record had no room for (`MeetingRecord.maxEntries`), said on the cover.
    public var dropped: Int
    /// Strokes the record had no room for (`MeetingRecord.maxPoints`), said on the cover.
    public var inkDropped = 0
    public var pages: [Page]
    /// Content id (hex) → the file's path: filled in by the service.
    public var files: [String: String] = [:]
    /// The wall's look, for its pages of several panes: the background (bars, gaps) and the
    /// overscan the panes sit inside (`Config.background`, `Config.overscanPercent`).
    public var background: RGB = .black
    public var overscanPercent = 0.0

    public init(room: String, startedAt: Double, madeAt: Double, presenters: [Presenter], dropped: Int, pages: [Page]) {
        self.room = room
        self.startedAt = startedAt
        self.madeAt = madeAt
        self.presenters = presenters
        self.dropped = dropped
        self.pages = pages
    }

    /// Pages of the PDF: the cover and one per record page.
    public var pageCount: Int { pages.count + 1 }

    /// The content ids whose files the worker needs.
    public var contents: Set<String> {
        Set(
            pages.flatMap { page -> [String] in
                switch page {
                case .deck(let c, _, _, _, _), .clip(let c, _, _): [c]
                case .wall(let w): w.panes.compactMap(\.content).filter { Whiteboard.background($0) == nil }
                default: []
                }
            })
    }
}
