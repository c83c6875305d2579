import LecternCore

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
        /// A live share (§29) that was on the wall: its sharer, what it shared (`screen`,
        /// `camera`, `file`), how long, and its pictures when it started and ended (JPEG files
        /// `<frames>-start.jpg` and `<frames>-end.jpg` in the record's frame folder).
        case share(name: String, source: String, duration: Double, frames: String)
    }

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
    public func count(wallStrokes: [InkStroke]) -> Int {
        guard let e = onWall, case .page(let c, let n, let p, let part, _) = e.item else { return entries.count }
        let item = Item.page(content: c, name: n, page: p, part: part, strokes: wallStrokes)
        return entries.count < Self.maxEntries && !entries.contains(where: { $0.item == item }) ? entries.count + 1 : entries.count
    }

    /// The wall now shows `page` of a deck (or a whiteboard): the page that was there
    /// leaves with `leavingStrokes`. The same page again is no change.
    public mutating func pageShown(content: String, name: String, page: Int, part: PagePart, presenter: String?, at: Double, leavingStrokes: [InkStroke]) {
        if case .page(let c, _, let p, _, _)? = onWall?.item, c == content, p == page { return }
        pageLeft(strokes: leavingStrokes)
        startedAt = startedAt ?? at
        onWall = Entry(item: .page(content: content, name: name, page: page, part: part, strokes: []), presenter: presenter, at: at)
    }

    /// The page on the wall left it (another page, the idle screen, a clip): it is kept
    /// with `strokes`, unless an entry already shows the same page with the same ink.
    public mutating func pageLeft(strokes: [InkStroke]) {
        guard var e = onWall else { return }
        onWall = nil
        guard case .page(let c, let n, let p, let part, _) = e.item else { return }
        e.item = .page(content: c, name: n, page: p, part: part, strokes: strokes)
        append(e)
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
    public func pages(wallStrokes: [InkStroke]) -> [Entry] {
        var copy = self
        copy.pageLeft(strokes: wallStrokes)
        return copy.entries
    }

    /// Who presented what, in order of first appearance: each presenter with the names of
    /// what they showed (decks, whiteboards, clips), each once.
    public static func presenters(of entries: [Entry]) -> [(name: String, shown: [String])] {
        var order: [String] = []
        var shown: [String: [String]] = [:]
        for e in entries {
            let who = e.presenter ?? "(no presenter)"
            let what: String
            switch e.item {
            case .page(_, let name, _, _, _): what = name
            case .poll(let card): what = "Poll: \(card.title)"
            case .clip(_, let name, _): what = name
            case .share(_, let source, _, _): what = source == "camera" ? "Camera" : "Shared \(source)"
            }
            if shown[who] == nil { order.append(who); shown[who] = [] }
            if !shown[who]!.contains(what) { shown[who]!.append(what) }
        }
        return order.map { ($0, shown[$0]!) }
    }

    /// The meeting ended: nothing is kept.
    public mutating func clear() { self = MeetingRecord() }

    private mutating func append(_ e: Entry) {
        // Dedup: a page shown again unchanged (same page, same ink) is not a new page.
        if case .page = e.item, entries.contains(where: { $0.item == e.item }) { return }
        guard entries.count < Self.maxEntries else { dropped += 1; return }
        var e = e
        if case .page(let c, let n, let p, let part, let strokes) = e.item {
            var kept: [InkStroke] = []
            for s in strokes {
                if points + s.points.count > Self.maxPoints { inkDropped += 1; continue }
                points += s.points.count
                kept.append(s)
            }
            e.item = .page(content: c, name: n, page: p, part: part, strokes: kept)
        }
        entries.append(e)
    }
}
