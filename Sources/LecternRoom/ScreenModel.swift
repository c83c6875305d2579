import LecternCore
import LecternProtocol

/// The committed screen: what the room has put on the output (content, page, blank). The
/// stage renders its `scene`; state pushes carry its `state` (the wire form); the saved
/// `PresentationState` keeps it across restarts. A value: the screen queue computes the
/// next one and commits it once the stage has shown it.
public struct ScreenModel: Equatable, Sendable {
    public var content: ContentSnapshot?
    public var page = 0
    public var pageCount = 0
    public var blank: ScreenState.Blank = .none

    public init(content: ContentSnapshot? = nil, page: Int = 0, pageCount: Int = 0, blank: ScreenState.Blank = .none) {
        self.content = content
        self.page = page
        self.pageCount = pageCount
        self.blank = blank
    }

    public static let idle = ScreenModel()

    public var scene: Scene {
        switch blank {
        case .black: return .blank(.black)
        case .white: return .blank(.white)
        case .none: break
        }
        if let c = content, c.kind == .pdf, page >= 1 { return .page(content: c.id.hex, page: page) }
        return .idle
    }

    public var state: ScreenState {
        ScreenState(content: content, page: UInt32(page), pageCount: UInt32(pageCount), blank: blank, clip: nil)
    }

    /// The model after a screen signal, or the error to answer with.
    public func applying(_ signal: ControlSignal) throws(LecternError) -> ScreenModel {
        var next = self
        switch signal {
        case .next, .prev, .goto:
            guard content != nil, pageCount > 0 else { throw .nothingOnScreen }
            switch signal {
            case .next: next.page = min(page + 1, pageCount)
            case .prev: next.page = max(page - 1, 1)
            case .goto(let p):
                guard p >= 1, Int(p) <= pageCount else { throw .pageOutOfRange(page: p, pageCount: UInt32(pageCount)) }
                next.page = Int(p)
            default: break
            }
        case .blank(let white): next.blank = white ? .white : .black
        case .unblank: next.blank = .none
        case .handOver, .takeBack, .returnFloor: break
        }
        return next
    }
}
