import LecternModel
import LecternProtocol

/// Who may fetch which page image over HTTP (docs/protocol.md §24.2, §24.8), decided from
/// the room: only a joined viewer's key (403 otherwise); only a deck a pane of the wall shows
/// a page of (404 while no pane does: blank, a clip, nothing shown); a pane's live page
/// while locked, any page of the deck once unlocked (403 otherwise). Every pane counts: a
/// viewer follows the pane it picks (the main pane unless it picks another). The room
/// tells the shell when it changes; the web server asks it for every request. Pure.
public struct PageImageAccess: Equatable, Sendable {
    public enum Decision: Equatable, Sendable {
        case allowed(part: PagePart)
        /// Not a joined device's key, or a page the lock keeps from viewers: 403.
        case forbidden(String)
        /// Nothing of this deck is shown now: 404.
        case notShown(String)
    }

    /// A deck's page a pane shows (not blanked, no clip over it).
    public struct Shown: Equatable, Sendable {
        public var content: String
        public var page: Int
        public var pageCount: Int
        public var part: PagePart
        public init(content: String, page: Int, pageCount: Int, part: PagePart = .whole) {
            self.content = content
            self.page = page
            self.pageCount = pageCount
            self.part = part
        }
    }

    /// The keys of the viewers connected now (`PageImageAddress.key(for:)` of their tokens).
    public var keys: Set<String> = []
    /// The deck in the main pane (content id hex), when a page of a PDF is shown, not blanked and no clip plays.
    public var content: String?
    public var page = 0
    public var pageCount = 0
    public var locked = true
    public var part: PagePart = .whole
    /// The decks' pages the wall's other panes show (§9.7), in pane order.
    public var others: [Shown] = []

    public init() {}

    /// Every deck's page on the wall, the main pane's first.
    public var shown: [Shown] {
        (content.map { [Shown(content: $0, page: page, pageCount: pageCount, part: part)] } ?? []) + others
    }

    public func decide(key: String, content c: String, page p: Int) -> Decision {
        guard !key.isEmpty, keys.contains(key) else { return .forbidden("Join the room as a viewer first: page images are for its audience.\n") }
        let panes = shown.filter { $0.content == c }
        guard let first = panes.first else { return .notShown("That slide isn't on the wall now.\n") }
        guard p >= 1, p <= first.pageCount else { return .notShown("The deck has \(first.pageCount) pages.\n") }
        guard let pane = panes.first(where: { $0.page == p }) ?? (locked ? nil : first) else {
            return .forbidden("The presenter has locked navigation: you follow the live page.\n")
        }
        return .allowed(part: pane.part)
    }
}

extension RoomCore {
    /// What the web server lets viewers fetch now (§24.2; told to the shell: `announceServed`).
    var pageImageAccess: PageImageAccess {
        var a = PageImageAccess()
        a.keys = audience.viewers.imageKeys
        a.locked = audience.navigation.locked
        let live = screen.committed
        if let c = live.content, c.kind == .pdf, live.blank == .none, screen.clip == nil, live.page >= 1 {
            a.content = c.id.hex
            a.page = live.page
            a.pageCount = live.pageCount
            a.part = live.part
        }
        a.others = wall.panes.indices.compactMap { paneDeckPage($0) }
        return a
    }

    /// The live page's image address for the state (`audience.pageImage`), or nil when there is none to fetch.
    var pageImagePath: String? {
        let a = pageImageAccess
        return a.content.map { PageImageAddress.path(content: $0, page: a.page) }
    }

    /// The deck's page pane `i` (not the main one) shows for viewers, if any.
    func paneDeckPage(_ i: Int) -> PageImageAccess.Shown? {
        guard let q = wall.panes[i].queue else { return nil }
        let c = q.committed
        guard let content = c.content, content.kind == .pdf, c.blank == .none, c.page >= 1 else { return nil }
        return PageImageAccess.Shown(content: content.id.hex, page: c.page, pageCount: c.pageCount, part: c.part)
    }

    /// Pane `i`'s image address for the state's `layout` (nil: none to fetch).
    func paneImagePath(_ i: Int) -> String? {
        if wall.panes[i].isMain { return pageImagePath }
        return paneDeckPage(i).map { PageImageAddress.path(content: $0.content, page: $0.page) }
    }
}
