import LecternModel

/// The record of a meeting (docs/protocol.md §26): every page shown, in order, with the ink
/// that was on it when it left the wall, the poll results put on the wall, whiteboards and
/// clips, and who presented each. Pure: the room tells it what the wall shows now and what
/// ink a page had; it keeps the list, deduplicated and bounded, and says what a download
/// would contain. Saved in `state.json` with the room (nothing lost to a kill -9), cleared
/// when the meeting ends.
public struct MeetingRecord: Codable, Equatable, Sendable {
    /// What one page of the record shows.
    public enum Item: Codable, Equatable, Sendable {
        /// A deck's page (or a whiteboard: its content id is `Whiteboard.whiteHex`/`blackHex`)
        /// with the finished strokes it had when it left the wall.
        case page(content: String, name: String, page: Int, part: PagePart, strokes: [InkStroke])
        /// A poll's results as the wall showed them (the last counts shown).
        case poll(WallCard)
        /// A clip that played: its first frame, name and duration go on its page.
        case clip(content: String, name: String, duration: Double)
        /// A wall of several panes (§9.7) as it looked, each page with the strokes it had
        /// when the wall changed.
        case wall(RecordWall)

        /// The same item without ink (as it goes on the wall, before its ink is counted).
        var withoutStrokes: Item {
            switch self {
            case .page(let c, let n, let p, let part, _): return .page(content: c, name: n, page: p, part: part, strokes: [])
            case .wall(let w): return .wall(w.withoutStrokes)
            default: return self
            }
        }

        /// With every page's finished strokes now (`strokes(content, page)`).
        func withStrokes(_ strokes: StrokesOf) -> Item {
            switch self {
            case .page(let c, let n, let p, let part, _): return .page(content: c, name: n, page: p, part: part, strokes: strokes(c, p))
            case .wall(var w):
                w.panes = w.panes.map { pane in
                    guard case .page(let c, let n, let p, let part, _) = pane else { return pane }
                    return .page(content: c, name: n, page: p, part: part, strokes: strokes(c, p))
                }
                return .wall(w)
            default: return self
            }
        }

        /// A live share (§29) that was on the wall: its sharer, what it shared (`screen`,
        /// `camera`, `file`), how long, and its pictures when it started and ended (JPEG files
        /// `<frames>-start.jpg` and `<frames>-end.jpg` in the record's frame folder).
        case share(name: String, source: String, duration: Double, frames: String)
    }

    /// The finished strokes on a page (content id hex, page from 1) now.
    public typealias StrokesOf = (_ content: String, _ page: Int) -> [InkStroke]

    public struct Entry: Codable, Equatable, Sendable {
        public var item: Item
        /// Who held the floor when it was shown (nil: nobody, e.g. the moderator's clear).
        public var presenter: String?
        /// When it was first shown, wall-clock seconds since 1970.
        public var at: Double
        public init(item: Item, presenter: String?, at: Double) {
            self.item = item
            self.presenter = presenter
            self.at = at
        }
    }

    /// At most this many entries (pages of the record, cover not counted); past it the
    /// oldest are kept and new ones are counted in `dropped` (the cover says so).
    public static let maxEntries = 500
    /// At most this many ink points in all the record's pages (as many as the whole room's
    /// ink, `InkBoard.Limits.totalPoints`): the record is saved after every change. A page
    /// whose ink doesn't fit is kept with the strokes that do (`inkDropped` counts them).
    public static let maxPoints = 200_000

    /// Finished entries, in the order shown.
    public private(set) var entries: [Entry] = []
    /// The page on the wall now: its ink is still changing; it becomes an entry when it leaves.
    public private(set) var onWall: Entry?
    /// Entries not kept because the record was full.
    public private(set) var dropped = 0
    /// Strokes left out because the record's ink was full.
    public private(set) var inkDropped = 0
    /// Ink points in `entries`.
    public private(set) var points = 0
    /// When the meeting's first page was shown (wall clock), for the cover's date.
    public private(set) var startedAt: Double?

    public init() {}

    public var isEmpty: Bool { entries.isEmpty && onWall == nil }
    /// Pages kept, the page on the wall included (before it is deduplicated).
    public var count: Int { entries.count + (onWall == nil ? 0 : 1) }

    /// Pages a download would have now (cover not counted): as `pages(wallStrokes:)`, without copying.
    public func count(wallStrokes: [InkStroke]) -> Int { count { _, _ in wallStrokes } }

    /// Pages a download would have now, the wall's pages with `strokes`: as `pages(strokes:)`, without copying.
    public func count(strokes: StrokesOf) -> Int {
        guard let e = onWall else { return entries.count }
        let item = e.item.withStrokes(strokes)
        return entries.count < Self.maxEntries && !entries.contains(where: { $0.item == item }) ? entries.count + 1 : entries.count
    }

    /// The wall now shows `page` of a deck (or a whiteboard): the page that was there
    /// leaves with `leavingStrokes`. The same page again is no change.
    public mutating func pageShown(content: String, name: String, page: Int, part: PagePart, presenter: String?, at: Double, leavingStrokes: [InkStroke]) {
        pageShown(content: content, name: name, page: page, part: part, presenter: presenter, at: at) { _, _ in leavingStrokes }
    }

    /// As above, what leaves the wall with each of its pages' `strokes`.
    public mutating func pageShown(content: String, name: String, page: Int, part: PagePart, presenter: String?, at: Double, strokes: StrokesOf) {
        if case .page(let c, _, let p, _, _)? = onWall?.item, c == content, p == page { return }
        left(strokes: strokes)
        startedAt = startedAt ?? at
        onWall = Entry(item: .page(content: content, name: name, page: page, part: part, strokes: []), presenter: presenter, at: at)
    }

    /// The page on the wall left it (another page, the idle screen, a clip): it is kept
    /// with `strokes`, unless an entry already shows the same page with the same ink.
    public mutating func pageLeft(strokes: [InkStroke]) { left { _, _ in strokes } }

    /// What the wall showed (a page, or a wall of several panes) left it: it is kept with
    /// each page's `strokes` now, unless an entry already shows it with the same ink.
    public mutating func left(strokes: StrokesOf) {
        guard var e = onWall else { return }
        onWall = nil
        e.item = e.item.withStrokes(strokes)
        append(e)
    }

    /// The wall now shows several panes (§9.7), as `view` says: what was on the wall leaves
    /// with its pages' `strokes`. The same view again (its ink aside) is no change.
    public mutating func wallShown(_ view: RecordWall, presenter: String?, at: Double, strokes: StrokesOf) {
        let item = Item.wall(view.withoutStrokes)
        if onWall?.item == item { return }
        left(strokes: strokes)
        startedAt = startedAt ?? at
        onWall = Entry(item: item, presenter: presenter, at: at)
    }

    /// After something put between (a poll, a clip), what was on the wall is on it again
    /// (a change to its ink after that is a new page of the record, the same unchanged not).
    public mutating func putBack(_ e: Entry?) {
        guard let e else { return }
        switch e.item {
        case .page, .wall: onWall = Entry(item: e.item.withoutStrokes, presenter: e.presenter, at: e.at)
        default: break
        }
    }

    /// A poll's results on the wall. While the same poll stays up its counts change: the
    /// last entry is replaced (the record keeps the results as last shown).
    public mutating func pollShown(_ card: WallCard, presenter: String?, at: Double) {
        startedAt = startedAt ?? at
        if case .poll(let last)? = entries.last?.item, last.title == card.title, last.bars.map(\.label) == card.bars.map(\.label) {
            entries[entries.count - 1].item = .poll(card)
            return
        }
        append(Entry(item: .poll(card), presenter: presenter, at: at))
    }

    /// A clip started playing over the page (the page stays on the record as it was).
    public mutating func clipPlayed(content: String, name: String, duration: Double, presenter: String?, at: Double) {
        startedAt = startedAt ?? at
        append(Entry(item: .clip(content: content, name: name, duration: duration), presenter: presenter, at: at))
    }

    /// A live share left the wall (it goes in after the page it was over).
    public mutating func shareShown(name: String, source: String, duration: Double, frames: String, at: Double) {
        startedAt = startedAt ?? at
        append(Entry(item: .share(name: name, source: source, duration: duration, frames: frames), presenter: name, at: at))
    }

    /// What a download has now: the entries, then the page on the wall with `wallStrokes`
    /// (unless an entry already has it as it is).
    public func pages(wallStrokes: [InkStroke]) -> [Entry] { pages { _, _ in wallStrokes } }

    /// What a download has now: the entries, then what is on the wall with each page's `strokes`.
    public func pages(strokes: StrokesOf) -> [Entry] {
        var copy = self
        copy.left(strokes: strokes)
        return copy.entries
    }

    /// Who presented what, in order of first appearance: each presenter with the names of
    /// what they showed (decks, whiteboards, clips), each once.
    public static func presenters(of entries: [Entry]) -> [(name: String, shown: [String])] {
        var order: [String] = []
        var shown: [String: [String]] = [:]
        func note(_ who: String?, _ what: String) {
            let who = who ?? "(no presenter)"
            if shown[who] == nil { order.append(who); shown[who] = [] }
            if !shown[who]!.contains(what) { shown[who]!.append(what) }
        }
        for e in entries {
            switch e.item {
            case .page(_, let name, _, _, _): note(e.presenter, name)
            case .poll(let card): note(e.presenter, "Poll: \(card.title)")
            case .clip(_, let name, _): note(e.presenter, name)
            case .share(_, let source, _, _): note(e.presenter, source == "camera" ? "Camera" : "Shared \(source)")
            case .wall(let w):
                // Each pane's driver showed what is in it.
                for (i, pane) in w.panes.enumerated() {
                    let who = i < w.drivers.count ? w.drivers[i] : nil
                    switch pane {
                    case .page(_, let name, _, _, _), .clip(_, let name): note(who, name)
                    case .blank, .empty: break
                    }
                }
            }
        }
        return order.map { ($0, shown[$0]!) }
    }

    /// The meeting ended: nothing is kept.
    public mutating func clear() { self = MeetingRecord() }

    private mutating func append(_ e: Entry) {
        // Dedup: a page (or a wall) shown again unchanged (same pages, same ink) is not a new page.
        switch e.item {
        case .page, .wall: if entries.contains(where: { $0.item == e.item }) { return }
        default: break
        }
        guard entries.count < Self.maxEntries else { dropped += 1; return }
        var e = e
        switch e.item {
        case .page(let c, let n, let p, let part, let strokes):
            e.item = .page(content: c, name: n, page: p, part: part, strokes: keep(strokes))
        case .wall(var w):
            w.panes = w.panes.map { pane in
                guard case .page(let c, let n, let p, let part, let strokes) = pane else { return pane }
                return .page(content: c, name: n, page: p, part: part, strokes: keep(strokes))
            }
            e.item = .wall(w)
        default: break
        }
        entries.append(e)
    }

    /// The strokes that fit in the record's ink (`maxPoints`); the rest are counted.
    private mutating func keep(_ strokes: [InkStroke]) -> [InkStroke] {
        var kept: [InkStroke] = []
        for s in strokes {
            if points + s.points.count > Self.maxPoints { inkDropped += 1; continue }
            points += s.points.count
            kept.append(s)
        }
        return kept
    }
}
