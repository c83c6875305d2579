import Foundation
import LecternModel
import LecternPipeline
import LecternRender
import LecternSystem

/// The display loop's present, held open (issue 26's page turn beside a clip): a
/// composition drawn ahead of its refresh is not committed at once. Until `ComposeTiming`'s
/// commit point just before the refresh, the loop keeps taking its mailbox with the drawn
/// back buffer in hand, and what changes meanwhile (a page turn in the pane beside a playing
/// clip) is composed again and drawn into that same buffer — only the panes it changed
/// (`BufferContents`) — so it makes this refresh instead of waiting for the next one.
///
/// Still on the loop's thread and inside `Output.present`'s drawing: nothing here presents,
/// and whatever must not run while the output's buffer is held (a re-probe of the display:
/// KMS holds its lock across the drawing) waits until the present returned.
extension LoopBody {
    /// Draws `c` into the back buffer and presents it (the moving sources' frames are the
    /// ones `takeVideo` took last), held open until `holdUntil` (nil: committed at once) for
    /// changes posted meanwhile. Returns what drawing `c` took (seconds).
    mutating func present(_ c: Composition, holdUntil: Double?, post: @escaping @Sendable (StageEvent) -> Void) -> Double {
        var drawn = 0.0
        let output = self.output
        do {
            try output.present { back in
                let start = MonotonicClock.now()
                draw(c, into: back)
                drawn = MonotonicClock.now() - start
                if let until = holdUntil { hold(back, until: until, post: post) }
            }
        } catch {
            hooks.log("present: \(error)")
        }
        if reprobeHeld {
            reprobeHeld = false
            carry([.reprobe], post: post)
        }
        return drawn
    }

    /// Takes what is posted until `until`, drawing each change into `back` as it comes.
    mutating func hold(_ back: Frame, until: Double, post: @escaping @Sendable (StageEvent) -> Void) {
        holding = true
        defer { holding = false }
        while !stopped {
            let now = MonotonicClock.now()
            guard now < until else {
                timing.committed(late: now - until)
                return
            }
            shared.mailbox.wait(seconds: until - now)
            take(post: post)
            guard !stopped, core.dirty, core.connected, let c = core.compose(now: clock()) else { continue }
            let start = MonotonicClock.now()
            draw(c, into: back)
            timing.merged(MonotonicClock.now() - start)
        }
    }

    /// Where pane `i`'s moving source draws its picture, when `back` shows that source in
    /// that pane at that size already: its bars are there, only the picture is copied.
    func pictureOnly(_ c: Composition, pane i: Int, stamp: BufferContents.Stamp, back: Frame) -> PixelRect? {
        guard case .video(let serial, _, let paused) = stamp, case .video(serial, _, paused)? = contents.previous(in: back, pane: i, c),
            let f = lastVideo[serial], f.width == c.panes[i].rect.width, f.height == c.panes[i].rect.height
        else { return nil }
        return sources[serial]?.pictureRect(width: f.width, height: f.height)
    }

    /// Draws `c` into `back`: only the panes whose picture changed since that buffer was
    /// drawn (`BufferContents`).
    mutating func draw(_ c: Composition, into back: Frame) {
        var moving: [Int: Frame] = [:]
        var stamps: [BufferContents.Stamp] = []
        var stills: [Frame?] = []
        for p in c.panes {
            switch p.content {
            case .video(let serial):
                moving[serial] = lastVideo[serial]
                // A card's panel or a share's ink over it: drawn again each time (as ink over a page).
                let decorated = p.overlay != nil || ink.hasInk(InkOverlay.Key.share(serial: serial))
                stamps.append(lastVideo[serial] == nil || decorated ? .other : .video(serial: serial, take: takes[serial] ?? 0, paused: p.paused))
                stills.append(nil)
            case .frame(let f, let scene, let pageRect) where pageRect == nil || !ink.hasInk(scene):
                stamps.append(.still(ObjectIdentifier(f)))
                stills.append(f)
            default:
                stamps.append(.other)
                stills.append(nil)
            }
        }
        // A frame no pane shows any more is let go (its buffer goes back to its producer).
        for serial in lastVideo.keys where moving[serial] == nil && sources[serial] == nil {
            lastVideo[serial] = nil
            takes[serial] = nil
        }
        let overscan = core.overscanPercent
        let whole = c.panes.count == 1 && c.panes[0].rect == back.bounds
        // The background only where no pane is drawn (a tiling layout covers it all).
        if !whole && !c.panesCoverTheOutput { back.fill(c.background) }
        let corner = c.cornerCode.map { _ in CornerCode.rect(width: back.width, height: back.height, overscanPercent: overscan) }
        let draw = contents.panesToDraw(into: back, c, stamps: stamps, corner: corner)
        for (i, p) in c.panes.enumerated() where draw[i] {
            PaneDrawing.draw(
                p, into: back, whole: whole, background: c.background, ink: ink, hooks: hooks, moving: moving,
                pictureOnly: pictureOnly(c, pane: i, stamp: stamps[i], back: back), scratch: &scratch)
        }
        if let code = c.cornerCode { CornerCode.draw(code, into: back, overscanPercent: overscan) }
        contents.drew(c, stamps: stamps, into: back, stills: stills)
    }
}
