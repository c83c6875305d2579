import LecternCore
import LecternRender

extension Compositor {
    /// The PDF's own transition to page `page` of `content` (`/Trans`), or nil: none, or the
    /// document can't be opened (a missing transition is never an error: the page is a cut).
    public func pageTransition(content: String, page: Int) -> PageTransition? {
        (try? documents(content))?.transition(page: page)
    }

    /// Page `page` of `content` at the output's size if it is in the cache (never rendered here).
    public func cachedFrame(content: String, page: Int) -> Frame? {
        let key = PageCache.Key(content: content, page: page, look: settings.look)
        return cache.contains(key) ? cache.lookup(key) : nil
    }
}
