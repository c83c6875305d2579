/// A page drawn for the wall (or a pane of it): the frame (its size, bars included), where
/// the page (or the part of it shown, for a beamer deck) sits in that frame, and the
/// transition the page asks for (`/Trans`). The render worker reports all three in one reply
/// (`RenderWire.Reply`), the page cache keeps them together, and the display loop takes them
/// as one event: nothing opens the PDF again for the box or the transition.
public struct RenderedPage: Sendable {
    public var frame: Frame
    /// nil: no page in the frame (the idle screen, a blank).
    public var pageRect: PixelRect?
    public var transition: PageTransition?

    public init(frame: Frame, pageRect: PixelRect?, transition: PageTransition? = nil) {
        self.frame = frame; self.pageRect = pageRect; self.transition = transition
    }
}
