import LecternModel

/// What the display loop draws into the back buffer at one refresh: every pane's picture
/// at its place, then the corner code. Made by `StageCore.compose(now:)`.
public struct Composition: Sendable {
    public var width: Int
    public var height: Int
    public var background: RGB
    public var panes: [ComposedPane]
    /// Drawn small in the corner over the whole wall (nil: none).
    public var cornerCode: String?
    /// Something besides the moving sources' frames changed since the last composition (a
    /// show, a transition's step, the ink, the corner code): it is presented even if no
    /// source has a new frame. False: only moving sources are in view, and a refresh where
    /// none of them has a new frame presents nothing (the output keeps its picture).
    public var changed = true

    /// Whether the panes cover the whole output without overlapping (a `full` or tiling
    /// layout), or one pane covers it all: then nothing of the background shows between
    /// them, and it need not be drawn first.
    public var panesCoverTheOutput: Bool {
        let all = PixelRect(x: 0, y: 0, width: width, height: height)
        if panes.contains(where: { $0.rect == all }) { return true }
        guard panes.allSatisfy({ $0.rect.x >= 0 && $0.rect.y >= 0 && $0.rect.maxX <= width && $0.rect.maxY <= height }) else { return false }
        for (i, a) in panes.enumerated() {
            for b in panes[(i + 1)...] where a.rect.x < b.rect.maxX && b.rect.x < a.rect.maxX && a.rect.y < b.rect.maxY && b.rect.y < a.rect.maxY {
                return false
            }
        }
        return panes.reduce(0) { $0 + $1.rect.width * $1.rect.height } == width * height
    }
}

/// One pane of a composition.
public struct ComposedPane: Sendable {
    public enum Content: Sendable {
        /// A still frame of the pane's size (its page at `pageRect` in it, for the ink).
        case frame(Frame, scene: Scene, pageRect: PixelRect?)
        /// A page transition inside the pane, at `progress`.
        case blend(PageTransition, progress: Double, from: Frame, to: Frame, scene: Scene)
        /// The newest frame of moving source `serial`.
        case video(serial: Int)
        /// Nothing yet: the background.
        case empty
    }
    /// Where the pane sits on the output.
    public var rect: PixelRect
    public var content: Content
    /// Marked paused (a live share held on its last picture, §29): a badge over its corner.
    public var paused = false
    /// A card over a moving source: `panel` of `frame` (the pane's size) is copied over it.
    public var overlay: (frame: Frame, panel: PixelRect)?

    public init(rect: PixelRect, content: Content, paused: Bool = false) {
        self.rect = rect
        self.content = content
        self.paused = paused
    }

    /// A short name of what is drawn (tests and logs).
    public var kind: String {
        switch content {
        case .frame(_, let s, _): return "frame \(s)"
        case .blend(let t, let p, _, _, let s): return "blend \(t.style) \(p) to \(s)"
        case .video(let serial): return "video #\(serial)"
        case .empty: return "empty"
        }
    }
}
