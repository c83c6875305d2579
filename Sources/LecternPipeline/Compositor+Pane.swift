import LecternModel
import LecternRender

extension Compositor {
    /// `scene` drawn for a pane of `width`×`height` (issue 26): the same look as the wall
    /// (background, bars) without the overscan (the wall's panes are inside the safe area
    /// already), pages kept in the wall's cache, with where the page sits in the frame (nil:
    /// no page) and its transition, as the renderer reported them.
    public func paneFrame(for scene: Scene, width: Int, height: Int) throws -> RenderedPage {
        let look = paneLook(width: width, height: height)
        switch scene {
        case .idle:
            let f = Frame(width: width, height: height, color: look.background)
            idleScreen.draw(into: f, overscanPercent: 0)
            return RenderedPage(frame: f, pageRect: nil)
        case .blank(let color):
            return RenderedPage(frame: Frame(width: width, height: height, color: color), pageRect: nil)
        case .page(let content, let page):
            return try cachedPage(content, page, look)
        case .pagePart(let content, let page, let part):
            return try cachedPage(content, page, look, part: part)
        case .card(let card, let base):
            let b = try paneFrame(for: base, width: width, height: height)
            let f = b.frame.clone()
            WallCardDrawing.draw(card, into: f, overscanPercent: 0)
            return RenderedPage(frame: f, pageRect: b.pageRect)
        }
    }

    /// The look of a pane of `width`×`height`: the wall's, without the overscan.
    func paneLook(width: Int, height: Int) -> Settings {
        var look = settings.sized(width: width, height: height)
        look.overscanPercent = 0
        return look
    }
}
