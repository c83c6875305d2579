import LecternCore
import LecternRender

extension Compositor {
    /// `scene` drawn for a pane of `width`×`height` (issue 26): the same look as the wall
    /// (background, bars) without the overscan (the wall's panes are inside the safe area
    /// already), pages kept in the wall's cache. Returns where the page sits in the frame
    /// (nil: no page).
    public func paneFrame(for scene: Scene, width: Int, height: Int) throws -> (frame: Frame, pageRect: PixelRect?) {
        var look = settings.sized(width: width, height: height)
        look.overscanPercent = 0
        switch scene {
        case .idle:
            let f = Frame(width: width, height: height, color: look.background)
            idleScreen.draw(into: f, overscanPercent: 0)
            return (f, nil)
        case .blank(let color):
            return (Frame(width: width, height: height, color: color), nil)
        case .page(let content, let page):
            return (try cachedPage(content, page, look), try paneRect(content: content, page: page, part: .whole, look: look))
        case .pagePart(let content, let page, let part):
            return (try cachedPage(content, page, look, part: part), try paneRect(content: content, page: page, part: part, look: look))
        case .card(let card, let base):
            let (b, rect) = try paneFrame(for: base, width: width, height: height)
            let f = b.clone()
            WallCardDrawing.draw(card, into: f, overscanPercent: 0)
            return (f, rect)
        }
    }

    private func paneRect(content: String, page: Int, part: PagePart, look: Settings) throws -> PixelRect {
        let shape = Whiteboard.background(content) != nil ? Whiteboard.shape : part.shape(of: try documents(content).shape(page: page))
        return Fit.rect(for: shape, width: look.width, height: look.height, overscanPercent: 0)
    }
}
