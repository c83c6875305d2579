import LecternModel

/// What happens to the stage (issue 26): everything the display loop feeds its `StageCore`,
/// with the time passed beside it (`StageCore.handle(_:now:)`).
public enum StageEvent: Sendable {
    /// Show `plan` (`op`: the room's change to report as shown; nil: the stage's own).
    case show(op: Int?, WallPlan)
    /// A render asked for by `StageEffect.render` finished (or failed).
    case rendered(request: Int, Result<RenderedPane, StageFailure>)
    /// A present put a composition on the output (at `now`).
    case presented
    /// The ink or a pointer changed.
    case inkChanged
    /// The code in the wall's corner (nil: none).
    case cornerCode(String?)
    /// The room's transition for pages without one of their own.
    case fallbackTransition(PageTransition?)
    /// The idle card's text changed: panes showing it are drawn again.
    case idleChanged
    /// A display hotplug event: the output is to look again (`StageEffect.reprobe`).
    case displayEvent
    /// What the output is now (after a reprobe, or at the start).
    case output(DisplayMode, connected: Bool, changed: Bool)
    /// A moving source for `serial` was attached (its frames are the loop's to take).
    case sourceAttached(serial: Int)
    /// Moving source `serial` ended (the clip ended, was stopped, or failed).
    case sourceEnded(serial: Int)
}

/// A pane's page drawn by a render worker (or found in the cache): the frame (the pane's
/// size, bars included), where the page sits in it, and the transition the page asks for
/// (`/Trans`), all three from the renderer's one reply.
public typealias RenderedPane = RenderedPage

/// Why a show did not reach the output.
public enum StageFailure: Error, Equatable, Sendable {
    /// A newer show overtook it.
    case superseded
    /// Its page (asked for by render `request`) could not be drawn: the renderer's message.
    case render(request: Int, message: String)
}
