import LecternModel
import LecternSystem
import LecternRender

extension Compositor {
    /// Page `page` of `content` at the output's size if it is in the cache (never rendered
    /// here), with its transition as its render reported it. A look ahead: counted as no
    /// hit, and it keeps its place in the eviction order.
    public func cachedPage(content: String, page: Int) -> RenderedPage? {
        cache.peek(PageCache.Key(content: content, page: page, look: settings.look))
    }
}
