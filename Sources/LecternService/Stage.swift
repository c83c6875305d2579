import Dispatch
import Foundation
import LecternCore
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternVideo

/// The one owner of the output: keeps the scene that should be on it and presents it.
/// Every change of scene goes through `show`, serialised on the stage's queue. A scene
/// that can't be rendered leaves the previous frame on the output and throws.
public final class Stage: @unchecked Sendable {
    public let output: Output
    /// Replaced only on `queue`, under `compositorLock`, so readers off the queue (page
    /// previews while a clip holds the queue) never wait for the stage.
    private var _compositor: Compositor
    private let compositorLock = NSLock()
    let queue = DispatchQueue(label: "lectern.stage")
    var current: Scene = .idle
    /// The frame on the output (on `queue`): what the heartbeat presents again.
    var presented: Frame?
    /// The latest `ticket()` handed out (under `compositorLock`).
    private var latestTicket = 0
    /// Page transitions (Stage+Transition.swift): the one running (on `queue`), the room's
    /// fallback for pages without `/Trans` (on `queue`) and the clock they run on.
    var animation: StageAnimation?
    var animationSerial = 0
    var fallback: PageTransition?
    let clock: @Sendable () -> Double
    let firstFrames = TransitionFirstFrames()
    /// The pointer and ink drawn over the page (a compositing step after the page frame).
    public let ink = InkOverlay()
    /// Where the page on the output sits (on `queue`), for the ink; nil when no page is shown.
    private var inkRect: PixelRect?
    /// The overlay version last presented (on `queue`), and whether that frame was a step
    /// of an animation (a trail or a fade: the next refresh draws the next step).
    private var inkDrawn = -1
    private var inkAnimated = false

    /// `clock`: what transitions count time on (tests inject one; monotonic seconds).
    public init(output: Output, compositor: Compositor, clock: @escaping @Sendable () -> Double = { MonotonicClock.now() }) {
        self.output = output
        self._compositor = compositor
        self.clock = clock
        startInkRefresh()
    }

    /// The frame pipeline for the output's current mode.
    public var compositor: Compositor { compositorLock.withLock { _compositor } }

    /// The scene on the output now.
    public var scene: Scene { queue.sync { current } }

    /// A ticket for the next `show`: a show presents only while its ticket is the latest
    /// handed out, so a show that a newer one overtook (the room moved on while its page
    /// was rendering) never reaches the output.
    ///
    /// A page the wall's render worker is drawing for an older show is stopped (the worker
    /// killed and replaced): the newer show, and the one after it, don't wait for it.
    public func ticket() -> Int {
        let (t, c) = compositorLock.withLock { () -> (Int, Compositor) in
            latestTicket += 1
            return (latestTicket, _compositor)
        }
        c.cancelWallRender()
        return t
    }

    private func superseded(_ ticket: Int?) -> Bool {
        guard let ticket else { return false }
        return compositorLock.withLock { ticket != latestTicket }
    }

    /// Renders (or takes from the cache) and presents `scene`; returns once it is on the
    /// output. Then prerenders the page's neighbours.
    ///
    /// The page is rendered before the stage's queue is taken, within the compositor's
    /// budget: a slow page holds neither the output, nor other shows, nor the heartbeat.
    /// Past the budget it throws `ContentError.tooSlow` and the previous frame stays. With
    /// a `ticket`, it throws `ShowSuperseded` (and presents nothing) once a newer ticket
    /// was handed out.
    public func show(_ scene: Scene, ticket: Int? = nil) throws {
        if superseded(ticket) { throw ShowSuperseded() }
        let frame: Frame
        do { frame = try compositor.frame(for: scene) } catch is RenderWorker.Cancelled { throw ShowSuperseded() }
        try queue.sync {
            if superseded(ticket) { throw ShowSuperseded() }
            try showLocked(scene, prepared: frame)
        }
    }

    private func showLocked(_ scene: Scene, prepared: Frame? = nil) throws {
        let interrupted = stopAnimation()
        let mode = output.mode
        if mode.width != _compositor.settings.width || mode.height != _compositor.settings.height {
            let resized = _compositor.resized(width: mode.width, height: mode.height)
            compositorLock.withLock { _compositor = resized }
        }
        let frame: Frame
        if let prepared, prepared.width == mode.width, prepared.height == mode.height {
            frame = prepared
        } else {
            frame = try _compositor.frame(for: scene)
        }
        if case .page(let content, let page) = scene {
            inkRect = try? _compositor.pageRect(content: content, page: page)
        } else if case .pagePart(let content, let page, let part) = scene {   // the ink's box is the part shown
            inkRect = try? _compositor.pageRect(content: content, page: page, part: part)
        } else {
            inkRect = nil
        }
        if !interrupted, let t = transition(from: current, to: scene, old: presented, new: frame) {
            try presentTransition(t, from: presented!, to: frame, scene: scene)
        } else {
            try present(frame, scene: scene)
        }
        current = scene
        presented = frame
        if case .page(let content, let page) = scene {
            _compositor.prerenderNeighbours(content: content, page: page)
        } else if case .pagePart(let content, let page, let part) = scene {
            _compositor.prerenderNeighbours(content: content, page: page, part: part)
        }
        prepareFirstFrames(after: scene, shown: frame)
    }

    /// Shows the current scene again (after the idle screen's text changed, or a display
    /// came back).
    public func refresh() throws {
        try queue.sync { try showLocked(current) }
    }

    /// After a hotplug event: lets the output re-probe its display and, when a display
    /// appeared or its mode changed, shows the current scene again at the new mode.
    public func displayChanged() throws {
        try queue.sync {
            if try output.reprobe() { try showLocked(current) }
        }
    }

    /// The output as devices see it (docs/protocol.md §21).
    public var outputStatus: OutputSnapshot {
        queue.sync {
            let m = output.mode
            return OutputSnapshot(
                connected: output.isConnected, mode: m.description, width: UInt32(m.width), height: UInt32(m.height), name: output.name)
        }
    }

    /// Changes the idle screen's text, and shows it if the output is idle.
    public func setIdle(_ screen: IdleScreen) throws {
        try queue.sync {
            _compositor.setIdle(screen)
            if current == .idle { try showLocked(.idle) }
        }
    }

    // MARK: clips

    private let playLock = NSLock()
    private var playing: PlaybackControl?
    private var presentsAtLastBeat = -1
    private let stallHook = PresentStallHook()

    /// Plays a clip on the output, paced to its refresh, holding the stage until it ends,
    /// is stopped or fails; then shows again the scene that was on screen before (the slide).
    public func play(_ decoder: ClipDecoder, loop: Bool, control: PlaybackControl, sound: ClipSound? = nil) -> PlaybackResult {
        queue.sync {
            playLock.lock(); playing = control; playLock.unlock()
            let mode = output.mode
            let s = _compositor.settings
            let rect = Fit.rect(for: decoder.info.shape, width: mode.width, height: mode.height, overscanPercent: s.overscanPercent)
            _ = stopAnimation()
            let result = ClipPlayback.play(decoder, on: output, rect: rect, background: s.background, loop: loop, control: control, sound: sound)
            decoder.close()
            playLock.lock(); playing = nil; playLock.unlock()
            try? showLocked(current)
            return result
        }
    }

    /// The watchdog's question: is the output alive? While a clip plays, its own presents
    /// answer (or it is paused); otherwise the frame on the output is presented again (not
    /// rendered again: the watchdog measures the display loop, not the renderer).
    public func heartbeat() throws {
        playLock.lock()
        let control = playing
        playLock.unlock()
        if let control {
            let n = output.presentCount
            defer { presentsAtLastBeat = n }
            if control.status.state == .paused || n != presentsAtLastBeat { return }
            throw StageError(description: "a clip is playing but nothing was presented since the last heartbeat")
        }
        try queue.sync {
            stallHook.waitWhileArmed()
            if animation != nil { return }   // the transition presents at every refresh
            let mode = output.mode
            if let f = presented, f.width == mode.width, f.height == mode.height {
                try present(f, scene: current)
            } else {
                try showLocked(current)
            }
        }
    }

    // MARK: ink

    /// Where the page on the output sits, as shares of the output (nil: no page shown).
    public var pageBox: InkSnapshot.Box? {
        queue.sync {
            let m = output.mode
            return inkRect.map {
                InkSnapshot.Box(
                    x: Double($0.x) / Double(m.width), y: Double($0.y) / Double(m.height),
                    width: Double($0.width) / Double(m.width), height: Double($0.height) / Double(m.height))
            }
        }
    }

    /// The code drawn small in the corner over anything but the idle screen while a
    /// device is joining (on `queue`; nil: none). CornerCode.swift.
    private var cornerCode: String?

    /// Shows or hides the code in the corner, presenting the frame on the output again.
    public func setCornerCode(_ code: String?) throws {
        try queue.sync {
            guard code != cornerCode else { return }
            cornerCode = code
            if animation == nil, let f = presented, current != .idle {
                let mode = output.mode
                if f.width == mode.width, f.height == mode.height { try present(f, scene: current) }
            }
        }
    }

    /// Presents `frame` with the ink of `scene` drawn over it (into the output's buffer,
    /// not into `frame`, which may be the page cache's), and the code in the corner.
    /// Both go into the output's buffer after the frame: no frame is copied for them, and
    /// the ink's composition cache keeps seeing the same base frame.
    func present(_ frame: Frame, scene: Scene) throws {
        let version = ink.currentVersion
        let code = scene != .idle ? cornerCode : nil
        let inkRect = ink.hasInk(scene) ? self.inkRect : nil
        guard inkRect != nil || code != nil else {
            try output.present(frame)
            inkDrawn = version
            return
        }
        let overscan = _compositor.settings.overscanPercent
        try output.present { f in
            if let rect = inkRect {
                inkDrawn = ink.compose(scene, base: frame, into: f, rect: rect)
            } else {
                f.copy(from: frame)
                inkDrawn = version
            }
            if let code { CornerCode.draw(code, into: f, overscanPercent: overscan) }
        }
    }

    /// The display loop of the ink: when the overlay changed (a pointer moved, a stroke
    /// grew) or a pointer is fading, presents the page frame again with the newest ink, at
    /// most once a refresh (a present waits for it). The page is not rendered again.
    private func startInkRefresh() {
        let overlay = ink
        let thread = Thread { [weak self] in
            var seen = -1
            while true {
                overlay.wait(after: seen, timeout: 0.5)
                guard let stage = self else { return }
                seen = stage.redrawInk()
            }
        }
        thread.name = "lectern.ink"
        thread.start()
    }

    /// Presents the ink again if it changed or moves; returns the version now on the output
    /// (or the one to wait past).
    private func redrawInk() -> Int {
        if playLock.withLock({ playing != nil }) { return ink.currentVersion }   // a clip holds the output
        return queue.sync {
            let version = ink.currentVersion
            if animation != nil { return version }   // a page transition presents every refresh; its last frame has the ink
            let animating = ink.animating(current)
            guard let f = presented, inkRect != nil, version != inkDrawn || animating || inkAnimated else { return version }
            let mode = output.mode
            guard f.width == mode.width, f.height == mode.height else { return version }
            try? present(f, scene: current)
            inkAnimated = animating
            return animating ? -1 : inkDrawn
        }
    }

    /// The frame on the output now, exactly.
    public func screenshot() -> Frame { output.readBack() }
}

struct StageError: Error, CustomStringConvertible { let description: String }

/// A show that a newer one overtook before it reached the output.
public struct ShowSuperseded: Error, CustomStringConvertible {
    public var description: String { "a newer screen change overtook this one" }
}
