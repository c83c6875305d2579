/// A moving picture shown in a pane: a clip now, a live screen share later (issue 26).
///
/// Its producer runs on its own thread (decoding, scaling to the pane's size, keeping a
/// small queue of frames). The display loop is the only code that presents: at each
/// refresh it takes from every moving source the frame due, without waiting for it. A
/// source never presents and never holds the output.
public protocol PaneVideoSource: AnyObject, Sendable {
    /// The frame to show at the refresh at `refresh` (monotonic seconds), `width`×`height`
    /// pixels (the source's picture fitted into the pane, bars included), or nil to keep
    /// what the pane shows (nothing new is due,
    /// paused, or the producer fell behind: the loop never waits). Called only by the
    /// display loop, once per refresh. Never blocks.
    func frame(forRefreshAt refresh: Double, refreshPeriod: Double) -> Frame?
    /// The display loop put the frame last taken on the output at `time` (monotonic
    /// seconds): for pacing, A/V sync and the presented/dropped counts.
    func presented(at time: Double)
    /// The pane's size on the output changed (a layout or mode change): frames from now on
    /// are produced at this size.
    func resize(width: Int, height: Int)
    /// Where the picture sits in a `width`×`height` frame of this source, when the rest of
    /// such a frame is bars that never change (nil: any of it may change). A pane drawn
    /// again from this source, into a buffer that already shows it at that size, copies
    /// only that part (two 1080p clips side by side: half of each pane is bars).
    func pictureRect(width: Int, height: Int) -> PixelRect?
}

extension PaneVideoSource {
    public func pictureRect(width: Int, height: Int) -> PixelRect? { nil }
}
