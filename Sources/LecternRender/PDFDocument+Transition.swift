import CPoppler
import LecternModel

extension PDFDocument {
    /// The page's own transition (`/Trans`), as poppler reads it; nil when the page has none
    /// (or `page` is out of range: a missing transition is never an error).
    public func transition(page: Int) -> PageTransition? {
        try? withPage(page) { p -> PageTransition? in
            guard let t = poppler_page_get_transition(p) else { return nil }
            defer { poppler_page_transition_free(t) }
            let style: PageTransition.Style
            switch t.pointee.type {
            case POPPLER_PAGE_TRANSITION_SPLIT: style = .split
            case POPPLER_PAGE_TRANSITION_BLINDS: style = .blinds
            case POPPLER_PAGE_TRANSITION_BOX: style = .box
            case POPPLER_PAGE_TRANSITION_WIPE: style = .wipe
            case POPPLER_PAGE_TRANSITION_DISSOLVE: style = .dissolve
            case POPPLER_PAGE_TRANSITION_GLITTER: style = .glitter
            case POPPLER_PAGE_TRANSITION_FLY: style = .fly
            case POPPLER_PAGE_TRANSITION_PUSH: style = .push
            case POPPLER_PAGE_TRANSITION_COVER: style = .cover
            case POPPLER_PAGE_TRANSITION_UNCOVER: style = .uncover
            case POPPLER_PAGE_TRANSITION_FADE: style = .fade
            default: style = .replace
            }
            return PageTransition(
                style: style, duration: t.pointee.duration_real,
                dimension: t.pointee.alignment == POPPLER_PAGE_TRANSITION_VERTICAL ? .vertical : .horizontal,
                motion: t.pointee.direction == POPPLER_PAGE_TRANSITION_OUTWARD ? .outward : .inward,
                angle: Int(t.pointee.angle))
        }
            ?? nil
    }
}
