import LecternModel
import LecternProtocol

/// The committed screen: what the room has put on the output (content, page, blank), once
/// the stage showed it. A value: the screen queue computes the next one and commits it
/// when it is on the output.
///
/// The screen's types, each named after its role: `CommittedScreen` (this), `Scene` (what
/// the stage is asked to render, its `scene`), `ScreenSnapshot` (the wire form state
/// pushes carry, its `snapshot`), `SavedState` (what survives a restart).
public struct CommittedScreen: Equatable, Sendable {
    public var content: ContentSnapshot?
    public var page = 0
    public var pageCount = 0
    public var blank: ScreenSnapshot.Blank = .none
    /// The part of each page the wall shows: the slide half of a beamer notes deck.
    public var part: PagePart = .whole
    /// A poll's results or a question shown over the page (§24); a page change drops it.
    public var card: WallCard?
    /// The deck's pages past `pageCount` are still being converted (§30.8): a page turn
    /// past them is refused with `pageStillConverting` and the wall stays.
    public var growing = false

    public init(content: ContentSnapshot? = nil, page: Int = 0, pageCount: Int = 0, blank: ScreenSnapshot.Blank = .none, part: PagePart = .whole) {
        self.content = content
        self.page = page
        self.pageCount = pageCount
        self.blank = blank
        self.part = part
    }

    public static let idle = CommittedScreen()

    public var scene: Scene {
        if let card, blank == .none { return .card(card, over: baseScene) }
        return baseScene
    }

    public var baseScene: Scene {
        switch blank {
        case .black: return .blank(.black)
        case .white: return .blank(.white)
        case .none: break
        }
        if let c = content, c.kind == .pdf, page >= 1 {
            return part == .whole ? .page(content: c.id.hex, page: page) : .pagePart(content: c.id.hex, page: page, part: part)
        }
        return .idle
    }

    public var snapshot: ScreenSnapshot {
        ScreenSnapshot(content: content, page: UInt32(page), pageCount: UInt32(pageCount), blank: blank, clip: nil)
    }

    /// The model after a screen signal, or the error to answer with.
    public func applying(_ signal: ControlSignal) throws(LecternError) -> CommittedScreen {
        var next = self
        switch signal {
        case .next, .prev, .goto:
            guard content != nil, pageCount > 0 else { throw .nothingOnScreen }
            next.card = nil
            switch signal {
            case .next:
                if growing, page >= pageCount { throw stillToCome(page + 1) }
                next.page = min(page + 1, pageCount)
            case .prev: next.page = max(page - 1, 1)
            case .goto(let p):
                if growing, Int(p) > pageCount { throw stillToCome(Int(p)) }
                guard p >= 1, Int(p) <= pageCount else { throw .pageOutOfRange(page: p, pageCount: UInt32(pageCount)) }
                next.page = Int(p)
            default: break
            }
        case .blank(let white): next.blank = white ? .white : .black
        case .unblank: next.blank = .none
        case .handOver, .takeBack, .returnFloor, .transitions: break
        }
        return next
    }
}

extension CommittedScreen {
    /// Page `page` of the growing deck shown is not converted yet.
    func stillToCome(_ page: Int) -> LecternError {
        .pageStillConverting(content?.name ?? "The deck", page: page, ready: pageCount)
    }

    /// The deck `content` now has all its `pages` (its conversion ended, §30.8): this screen,
    /// if it shows that deck, with the page count grown. The page shown stays.
    func completing(_ id: ContentID, pages: Int) -> CommittedScreen {
        guard content?.id == id, growing else { return self }
        var next = self
        next.pageCount = pages
        next.growing = false
        return next
    }

    func withCard(_ card: WallCard?) -> CommittedScreen {
        var next = self
        next.card = card
        return next
    }
}
