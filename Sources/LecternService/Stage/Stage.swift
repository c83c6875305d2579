import Dispatch
import Foundation
import LecternModel
import LecternSystem
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternStage
import LecternVideo
import Synchronization

/// The service's side of the wall: a thin shell over the `DisplayLoop` (LecternStage), the
/// one owner of the output. Everything here posts to the loop and never waits for it; the
/// blocking `show` is for the start and for tests (it waits for the loop's report, the loop
/// never waits for it). Pages are drawn by the compositor on the loop's render threads; a
/// page already in the compositor's cache is looked up by the loop itself (no hop).
///
/// Sendable unchecked, and why that holds: every `var` is read and written only with `lock` held
/// (the callbacks behind their own `Mutex`); the `let`s are Sendable but `output`
/// (`Output` is not Sendable: benches wrap outputs in plain classes), which the display
/// loop drives and this stage only asks what each output answers under its own lock
/// (`mode`, `isConnected`, `name`, `readBack`).
public final class Stage: @unchecked Sendable {
    public let output: Output
    /// Replaced (under `lock`) when the output's mode changes.
    private var _compositor: Compositor
    private let lock = NSLock()
    let clock: @Sendable () -> Double
    let firstFrames = TransitionFirstFrames()
    /// The pointer and ink drawn over each pane's page (a compositing step of the loop).
    public let ink: InkOverlay
    let loop: DisplayLoop
    /// Shows waiting for the loop's report, by the op the stage gave them (under `lock`).
    private var waiting: [Int: @Sendable (Result<[PixelRect?], Error>) -> Void] = [:]
    private var nextOp = 0
    /// Renderers' errors by request, for the show that asked (under `lock`).
    private var renderErrors: [Int: Error] = [:]
    /// The latest `ticket()` handed out (under `lock`).
    private var latestTicket = 0
    private var fallback: PageTransition?
    /// The watchdog's pings asked and answered (under `lock`), and the bell of answers.
    private var pingsAsked = 0
    private var pingsAnswered = 0
    private let pingBell = DispatchSemaphore(value: 0)
    #if LECTERN_TEST_HOOKS
        private let stallHook = PresentStallHook()
    #endif
    /// Called on the loop after the output looked again at its display (the service tells
    /// the room), and after the wall was drawn again on its own (a replug, a new mode) with
    /// every pane's page box.
    var onOutputChanged: (@Sendable () -> Void)? {
        get { callbacks.withLock { $0.outputChanged } }
        set { callbacks.withLock { $0.outputChanged = newValue } }
    }
    var onRedrawn: (@Sendable ([InkSnapshot.Box?]) -> Void)? {
        get { callbacks.withLock { $0.redrawn } }
        set { callbacks.withLock { $0.redrawn = newValue } }
    }
    /// Set by the service after the loop started (which may call them at once).
    private let callbacks = Mutex<(outputChanged: (@Sendable () -> Void)?, redrawn: (@Sendable ([InkSnapshot.Box?]) -> Void)?)>((nil, nil))

    /// `clock`: what transitions count time on (tests inject one; monotonic seconds).
    public init(output: Output, compositor: Compositor, clock: @escaping @Sendable () -> Double = { MonotonicClock.now() }) {
        self.output = output
        self._compositor = compositor
        self.clock = clock
        let ink = InkOverlay()
        self.ink = ink
        let weak = WeakStage()
        var hooks = DisplayHooks { r in weak.stage?.render(r) ?? .failure(.superseded) }
        hooks.cached = { weak.stage?.cached($0) }
        hooks.cancelRenders = { weak.stage?.compositor.cancelWallRender() }
        hooks.report = { weak.stage?.reported($0) }
        hooks.prerender = { weak.stage?.prerender($0, shown: $1) }
        hooks.drawnAhead = { t, p, from, to in weak.stage?.firstFrames.take(from: from, to: to, transition: t, progress: p) }
        hooks.outputChanged = { _, _ in weak.stage?.onOutputChanged?() }
        hooks.ping = { weak.stage?.answerPing() }
        let s = compositor.settings
        let core = StageCore(mode: output.mode, background: s.background, overscanPercent: s.overscanPercent, connected: output.isConnected)
        loop = DisplayLoop(output: output, core: core, ink: ink, hooks: hooks, clock: clock)
        weak.stage = self
        ink.onChange { [loop] in loop.inkChanged() }
    }

    deinit { loop.stop() }

    /// The frame pipeline for the output's current mode.
    public var compositor: Compositor { lock.withLock { _compositor } }

    /// The scene on the output now (pane 0's).
    public var scene: Scene { loop.snapshot.scene }

    /// The plan on the wall now.
    public var plan: WallPlan? { loop.snapshot.plan }

    /// A ticket for the next `show`: a show presents only while its ticket is the latest
    /// handed out. A page the wall's render worker draws for an older show is stopped.
    public func ticket() -> Int {
        let (t, c) = lock.withLock { () -> (Int, Compositor) in
            latestTicket += 1
            return (latestTicket, _compositor)
        }
        c.cancelWallRender()
        return t
    }

    private func superseded(_ ticket: Int?) -> Bool {
        guard let ticket else { return false }
        return lock.withLock { ticket != latestTicket }
    }

    /// Hands `plan` to the display loop; `done` is called (on the loop) once it is on the
    /// output with every pane's page box, or failed. Never waits.
    func submit(_ plan: WallPlan, _ done: @escaping @Sendable (Result<[PixelRect?], Error>) -> Void) {
        let op = lock.withLock { () -> Int in
            nextOp += 1
            waiting[nextOp] = done
            return nextOp
        }
        loop.post(.show(op: op, plan))
    }

    /// Shows `scene` and returns once it is on the output (the start, tests, the bench: the
    /// room's shows go through `submit` and never wait). A scene that can't be rendered
    /// leaves the previous frame on the output and throws; with a `ticket` that a newer one
    /// overtook, it throws `ShowSuperseded`.
    public func show(_ scene: Scene, ticket: Int? = nil) throws { try show(WallPlan(scene), ticket: ticket) }

    public func show(_ plan: WallPlan, ticket: Int? = nil) throws {
        if superseded(ticket) { throw ShowSuperseded() }
        let done = DispatchSemaphore(value: 0)
        let result = ShowResult()
        submit(plan) { r in
            result.set(r)
            done.signal()
        }
        done.wait()
        _ = try result.get()
    }

    /// Shows the current plan again (the idle screen's text changed).
    public func refresh() throws { loop.post(.idleChanged) }

    /// After a hotplug event: the loop lets the output look again and, when a display
    /// appeared or its mode changed, draws the wall again at the new mode. Never waits.
    public func displayChanged() throws { loop.post(.displayEvent) }

    /// The output as devices see it (docs/protocol.md §21).
    public var outputStatus: OutputSnapshot {
        let s = loop.snapshot
        let m = s.mode
        return OutputSnapshot(connected: s.connected, mode: m.description, width: UInt32(m.width), height: UInt32(m.height), name: output.name)
    }

    /// Changes the idle screen's text; panes showing it are drawn again. Never waits.
    public func setIdle(_ screen: IdleScreen) throws {
        compositor.setIdle(screen)
        loop.post(.idleChanged)
    }

    /// Shows or hides the code in the corner. Never waits.
    public func setCornerCode(_ code: String?) throws { loop.post(.cornerCode(code)) }

    /// The watchdog's question: is the display loop alive? It is asked (a ping through its
    /// mailbox) and must answer within `timeout` seconds: a wedged present, or a loop stuck
    /// anywhere, doesn't. The loop presents nothing for it.
    public func heartbeat(timeout: Double = 2) throws {
        let asked = lock.withLock { () -> Int in
            pingsAsked += 1
            return pingsAsked
        }
        loop.ping()
        let deadline = DispatchTime.now() + timeout
        while lock.withLock({ pingsAnswered < asked }) {
            if pingBell.wait(timeout: deadline) == .timedOut, lock.withLock({ pingsAnswered < asked }) {
                throw StageError(description: "the display loop did not answer within \(timeout) s")
            }
        }
    }

    private func answerPing() {
        #if LECTERN_TEST_HOOKS
            stallHook.waitWhileArmed()
        #endif
        lock.withLock { pingsAnswered += 1 }
        pingBell.signal()
    }

    // MARK: ink

    /// Where the page of pane 0 sits, as shares of the output (nil: no page shown).
    public var pageBox: InkSnapshot.Box? { pageBoxes.first ?? nil }

    /// Every pane's page box, as shares of the output.
    public var pageBoxes: [InkSnapshot.Box?] {
        let s = loop.snapshot
        return s.boxes.map { Self.share($0, s.mode) }
    }

    static func share(_ r: PixelRect?, _ m: DisplayMode) -> InkSnapshot.Box? {
        r.map {
            InkSnapshot.Box(
                x: Double($0.x) / Double(m.width), y: Double($0.y) / Double(m.height),
                width: Double($0.width) / Double(m.width), height: Double($0.height) / Double(m.height))
        }
    }

    /// The frame on the output now, exactly.
    public func screenshot() -> Frame { output.readBack() }

    // MARK: the loop's hooks

    /// On a render thread: draws a pane's scene (the page's box and transition come with it,
    /// from the renderer: nothing opens the PDF for them).
    private func render(_ r: RenderRequest) -> Result<RenderedPane, StageFailure> {
        do {
            let c = compositor(width: r.wholeOutput ? r.width : nil, height: r.height)
            return .success(r.wholeOutput ? try c.page(for: r.scene) : try c.paneFrame(for: r.scene, width: r.width, height: r.height))
        } catch is RenderWorker.Cancelled {
            return .failure(.superseded)
        } catch {
            lock.withLock { renderErrors[r.id] = error }
            return .failure(.render(request: r.id, message: "\(error)"))
        }
    }

    /// The compositor for the output's size now (a display with another mode was plugged).
    private func compositor(width: Int?, height: Int) -> Compositor {
        lock.withLock {
            if let width, width != _compositor.settings.width || height != _compositor.settings.height {
                _compositor = _compositor.resized(width: width, height: height)
            }
            return _compositor
        }
    }

    /// On the display loop: the page a request asks for, if the compositor's cache has it
    /// (the cache's lock is never held across a render; the stage's only for a swap).
    private func cached(_ r: RenderRequest) -> RenderedPane? {
        compositor.cachedPage(for: r.scene, width: r.width, height: r.height, wholeOutput: r.wholeOutput)
    }

    private func reported(_ effect: StageEffect) {
        switch effect {
        case .shown(let op, let boxes):
            if let op, let done = lock.withLock({ waiting.removeValue(forKey: op) }) {
                done(.success(boxes))
            } else {
                let m = loop.snapshot.mode
                onRedrawn?(boxes.map { Self.share($0, m) })
            }
        case .failed(let op, let why):
            guard let op, let done = lock.withLock({ waiting.removeValue(forKey: op) }) else { return }
            switch why {
            case .superseded: done(.failure(ShowSuperseded()))
            case .render(let request, let message):
                let e = lock.withLock { renderErrors.removeValue(forKey: request) }
                done(.failure(e ?? StageError(description: message)))
            }
        default: break
        }
    }

    /// After a full-wall page went up: its neighbours are drawn ahead, then the first frames
    /// of transitions to them.
    private func prerender(_ scene: Scene, shown frame: Frame?) {
        let c = compositor
        switch scene {
        case .page(let content, let page):
            c.prerenderNeighbours(content: content, page: page)
            if let frame { prepareFirstFrames(after: scene, shown: frame) }
        case .pagePart(let content, let page, let part): c.prerenderNeighbours(content: content, page: page, part: part)
        default: break
        }
    }

    // MARK: clips (the loop takes their frames; `StageClips.swift`)

    /// Moving sources: a clip playing, by serial (under `lock`).
    var fallbackLocked: PageTransition? {
        get { lock.withLock { fallback } }
        set { lock.withLock { fallback = newValue } }
    }
}

/// The stage, weakly, for the loop's hooks (the loop ends when the stage goes).
private final class WeakStage: Sendable {
    private struct Ref { weak var stage: Stage? }
    private let ref = Mutex(Ref())
    var stage: Stage? {
        get { ref.withLock { $0.stage } }
        set { ref.withLock { $0.stage = newValue } }
    }
}

/// A blocking show's result, handed from the loop's thread.
private final class ShowResult: Sendable {
    private let value = Mutex<Result<[PixelRect?], Error>>(.success([]))
    func set(_ r: Result<[PixelRect?], Error>) { value.withLock { $0 = r } }
    func get() throws -> [PixelRect?] { try value.withLock { $0 }.get() }
}

struct StageError: Error, CustomStringConvertible { let description: String }

/// A show that a newer one overtook before it reached the output.
public struct ShowSuperseded: Error, CustomStringConvertible {
    public var description: String { "a newer screen change overtook this one" }
}
