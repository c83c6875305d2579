import LecternCore

/// What the display loop draws into the back buffer at one refresh: every pane's picture
/// at its place, then the corner code. Made by `StageCore.compose(now:)`.
public struct Composition: Sendable {
    public var width: Int
    public var height: Int
    public var background: RGB
    public var panes: [ComposedPane]
    /// Drawn small in the corner over the whole wall (nil: none).
    public var cornerCode: String?
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
