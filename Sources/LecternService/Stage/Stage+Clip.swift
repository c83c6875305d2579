import Foundation
import LecternModel
import LecternPipeline
import LecternStage
import LecternVideo

extension Stage {
    /// Hands the display loop a moving source for `serial`: the panes whose plan shows
    /// `.clip(serial:)` take its frames at each refresh; the source never presents.
    public func attach(serial: Int, _ source: PaneVideoSource) { loop.attach(serial: serial, source) }

    /// The source of `serial` is over: its pane keeps its last frame until the next plan.
    public func detach(serial: Int) { loop.detach(serial: serial) }

    /// The size a moving source in pane `pane` of `layout` is drawn at on the output now (the
    /// stage resizes it if the wall changed meanwhile).
    public func sourceSize(layout: WallLayout, pane: Int) -> (width: Int, height: Int) {
        let r = StageCore.sourceRect(layout: layout, pane: pane, mode: loop.snapshot.mode, overscanPercent: compositor.settings.overscanPercent)
        return (r.width, r.height)
    }

    /// Compositions the display loop presented so far (tests, the bench).
    public var loopPresents: Int { loop.presents }
}
