import LecternCore
import LecternRender

extension Compositor {
    /// The PDF's own transition to page `page` of `content` (`/Trans`), or nil: none, or the
    /// document can't be opened (a missing transition is never an error: the page is a cut).
    public func pageTransition(content: String, page: Int) -> PageTransition? {
        (try? documents(content))?.transition(page: page)
    }
}
