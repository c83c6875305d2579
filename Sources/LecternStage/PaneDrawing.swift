import LecternModel
import LecternPipeline
import LecternRender

/// Draws one pane of a composition into the back buffer: its still frame (with the ink of
/// its page), a transition inside it, or a moving source's frame fitted with exact bars.
enum PaneDrawing {
    static func draw(
        _ p: ComposedPane, into back: Frame, whole: Bool, background: RGB, ink: InkOverlay, hooks: DisplayHooks,
        moving: [Int: Frame], pictureOnly: PixelRect? = nil, scratch: inout [Frame]
    ) {
        if case .video(let serial) = p.content, let r = pictureOnly, let f = moving[serial], f.width == p.rect.width, f.height == p.rect.height {
            // The buffer shows this source's bars already: the picture alone.
            Blit.copy(f, area: r, into: back, x: p.rect.x + r.x, y: p.rect.y + r.y)
        } else {
            drawContent(p, into: back, whole: whole, background: background, ink: ink, hooks: hooks, moving: moving, scratch: &scratch)
        }
        if case .video(let serial) = p.content {
            // Over a moving source: a card's panel, then the ink and pointers of a live share
            // (in the pane's coordinates, §29.8), drawn fresh over each frame.
            if let o = p.overlay, o.frame.width == p.rect.width, o.frame.height == p.rect.height {
                Blit.copy(o.frame, area: o.panel, into: back, x: p.rect.x + o.panel.x, y: p.rect.y + o.panel.y)
            }
            let key = InkOverlay.Key.share(serial: serial)
            if ink.hasInk(key) { ink.paint(key, into: back, rect: p.rect) }
        }
        if p.paused { PauseBadge.draw(into: back, pane: p.rect) }
    }

    private static func drawContent(
        _ p: ComposedPane, into back: Frame, whole: Bool, background: RGB, ink: InkOverlay, hooks: DisplayHooks,
        moving: [Int: Frame], scratch: inout [Frame]
    ) {
        switch p.content {
        case .empty:
            back.fill(p.rect, background)
        case .frame(let f, let scene, let pageRect):
            // A frame not of the pane's size (never, but the background is not drawn under
            // tiling panes): what it leaves uncovered is the background.
            if f.width != p.rect.width || f.height != p.rect.height { back.fill(p.rect, background) }
            if let pageRect, ink.hasInk(scene) {
                if whole, f.width == back.width, f.height == back.height {
                    ink.compose(scene, base: f, into: back, rect: pageRect)
                } else {
                    let s = take(&scratch, f.width, f.height)
                    ink.compose(scene, base: f, into: s, rect: pageRect)
                    Blit.copy(s, into: back, x: p.rect.x, y: p.rect.y)
                }
            } else if whole, f.width == back.width, f.height == back.height {
                back.copy(from: f)
            } else {
                Blit.copy(f, into: back, x: p.rect.x, y: p.rect.y)
            }
        case .blend(let t, let progress, let from, let to, _):
            if let ready = hooks.drawnAhead(t, progress, from, to) {
                if whole, ready.width == back.width, ready.height == back.height { back.copy(from: ready) } else { Blit.copy(ready, into: back, x: p.rect.x, y: p.rect.y) }
            } else if whole, from.width == back.width, from.height == back.height {
                TransitionBlend.draw(t, progress: progress, from: from, to: to, into: back)
            } else {
                let s = take(&scratch, from.width, from.height)
                TransitionBlend.draw(t, progress: progress, from: from, to: to, into: s)
                Blit.copy(s, into: back, x: p.rect.x, y: p.rect.y)
            }
        case .video(let serial):
            guard let f = moving[serial] else {
                back.fill(p.rect, background)
                return
            }
            if f.width == p.rect.width, f.height == p.rect.height {
                Blit.copy(f, into: back, x: p.rect.x, y: p.rect.y)
            } else {
                // A frame of another size (the pane changed under it): fitted, with bars.
                let inner = Fit.rect(aspect: Double(f.width) / Double(max(1, f.height)), in: p.rect)
                Blit.copy(f.scaled(width: inner.width, height: inner.height), into: back, x: inner.x, y: inner.y)
                Blit.bars(back, area: p.rect, inner: inner, background)
            }
        }
    }

    /// A scratch frame of this size (kept for the next refresh).
    static func take(_ scratch: inout [Frame], _ w: Int, _ h: Int) -> Frame {
        if let f = scratch.first(where: { $0.width == w && $0.height == h }) { return f }
        let f = Frame(width: w, height: h)
        scratch.append(f)
        if scratch.count > 4 { scratch.removeFirst() }
        return f
    }
}
