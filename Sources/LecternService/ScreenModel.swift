import LecternCore
import LecternProtocol

/// What the room has put on the output: content, page, blank. The stage renders it; the
/// state pushes describe it. A value: the room computes the next one and commits it once
/// the stage has shown it.
struct ScreenModel: Equatable, Sendable {
    var content: ContentSnapshot?
    var page = 0
    var pageCount = 0
    var blank: ScreenState.Blank = .none

    static let idle = ScreenModel()

    var scene: Scene {
        switch blank {
        case .black: return .blank(.black)
        case .white: return .blank(.white)
        case .none: break
        }
        if let c = content, c.kind == .pdf, page >= 1 { return .page(content: c.id.hex, page: page) }
        return .idle
    }

    var state: ScreenState {
        ScreenState(content: content, page: UInt32(page), pageCount: UInt32(pageCount), blank: blank, clip: nil)
    }

    /// The model after a screen signal, or the error to answer with.
    func applying(_ signal: ControlSignal) throws(LecternError) -> ScreenModel {
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
