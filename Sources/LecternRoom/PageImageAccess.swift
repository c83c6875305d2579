import LecternCore
import LecternProtocol

/// Who may fetch which page image over HTTP (docs/protocol.md §24.2), decided from the room:
/// only a joined viewer's key (403 otherwise); only the deck on the wall while a page of it
/// is shown (404 while the wall is blank, a clip plays or nothing is shown); the live page
/// while locked, any page of the deck once unlocked (403 otherwise). The room computes it
/// after every event; the web server asks it for every request. Pure.
public struct PageImageAccess: Equatable, Sendable {
    public enum Decision: Equatable, Sendable {
        case allowed(part: PagePart)
        /// Not a joined device's key, or a page the lock keeps from viewers: 403.
        case forbidden(String)
        /// Nothing of this deck is shown now: 404.
        case notShown(String)
    }

    /// The keys of the viewers connected now (`PageImageAddress.key(for:)` of their tokens).
    public var keys: Set<String> = []
    /// The deck on the wall (content id hex), when a page of a PDF is shown, not blanked and no clip plays.
    public var content: String?
    public var page = 0
    public var pageCount = 0
    public var locked = true
    public var part: PagePart = .whole

    public init() {}

    public func decide(key: String, content c: String, page p: Int) -> Decision {
        guard !key.isEmpty, keys.contains(key) else { return .forbidden("Join the room as a viewer first: page images are for its audience.\n") }
        guard let content, content == c else { return .notShown("That slide isn't on the wall now.\n") }
        guard p >= 1, p <= pageCount else { return .notShown("The deck has \(pageCount) pages.\n") }
        guard p == page || !locked else { return .forbidden("The presenter has locked navigation: you follow the live page.\n") }
        return .allowed(part: part)
    }
}

extension RoomCore {
    /// What the web server lets viewers fetch now (§24.2).
    public var pageImageAccess: PageImageAccess {
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
        return a
    }

    /// The live page's image address for the state (`audience.pageImage`), or nil when there is none to fetch.
    var pageImagePath: String? {
        let a = pageImageAccess
        return a.content.map { PageImageAddress.path(content: $0, page: a.page) }
    }
}
