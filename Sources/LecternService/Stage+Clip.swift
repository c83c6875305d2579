import Foundation
import LecternCore
import LecternPipeline
import LecternVideo

extension Stage {
    /// Hands the display loop a moving source for `serial` (a `.clip(serial:)` pane, or the
    /// whole wall with `fullScreen`: today's `playClip`). The loop takes its frames at each
    /// refresh; the source never presents.
    public func attach(serial: Int, _ source: PaneVideoSource, fullScreen: Bool = false) {
        loop.attach(serial: serial, source)
        if fullScreen { loop.post(.fullScreenSource(serial: serial)) }
    }

    /// The source of `serial` is over: its panes show the background, a full-screen one
    /// gives the wall back to the plan.
    public func detach(serial: Int) { loop.detach(serial: serial) }

    /// The size a source over the whole wall is drawn at (the safe area of the output now).
    public var fullScreenSourceSize: (width: Int, height: Int) {
        let s = loop.snapshot
        let r = Fit.safeArea(width: s.mode.width, height: s.mode.height, overscanPercent: compositor.settings.overscanPercent)
        return (r.width, r.height)
    }

    /// Compositions the display loop presented so far (tests, the bench).
    public var loopPresents: Int { loop.presents }
}
