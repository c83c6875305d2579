import LecternModel

/// What the `StageCore` asks its display loop to do.
public enum StageEffect: Sendable, Equatable {
    /// Draw `scene` at `width`×`height` for pane `pane` (off the loop); report `.rendered`.
    case render(RenderRequest)
    /// Any page the wall's worker draws for an older show may be stopped.
    case cancelRenders
    /// The show `op` is on the output: every pane's page box, in output pixels (nil: no page).
    case shown(op: Int?, boxes: [PixelRect?])
    /// The show `op` will never be on the output.
    case failed(op: Int?, StageFailure)
    /// Draw the neighbours of the full-wall page ahead (the wall's cache), now that it is up.
    case prerender(Scene)
    /// Frames of source `serial` are wanted at `width`×`height` from now on.
    case resizeSource(serial: Int, width: Int, height: Int)
    /// Source `serial` is no longer shown.
    case stopSource(serial: Int)
    /// Ask the output to look at its display again.
    case reprobe
}

/// A page (or idle card, blank, card) to draw for a pane.
public struct RenderRequest: Sendable, Equatable {
    public var id: Int
    public var pane: Int
    public var scene: Scene
    public var width: Int
    public var height: Int
    /// Whether it is the whole output (drawn with the overscan, and cached as the wall's).
    public var wholeOutput: Bool
    public init(id: Int, pane: Int, scene: Scene, width: Int, height: Int, wholeOutput: Bool) {
        self.id = id; self.pane = pane; self.scene = scene; self.width = width; self.height = height; self.wholeOutput = wholeOutput
    }
}
