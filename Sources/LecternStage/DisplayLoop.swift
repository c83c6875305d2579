import Foundation
import LecternModel
import LecternSystem
import LecternPipeline
import LecternRender
import Synchronization

/// What the display loop asks of the service around it. Each is called on the loop's
/// thread (`cached`, `report`, `outputChanged`, `prerender`, `cancelRenders`, `ping`) or on
/// a render thread (`render`), and must not wait for the loop.
public struct DisplayHooks: Sendable {
    /// Draws a pane's page (on a render thread, never the loop's).
    public var render: @Sendable (RenderRequest) -> Result<RenderedPane, StageFailure>
    /// The page a request asks for if it is drawn already (the page cache), looked up on the
    /// loop's thread: a page turn to a prerendered page takes no hop through the render
    /// threads. Must never render, nor wait on a lock held across a render. nil: a miss.
    public var cached: @Sendable (RenderRequest) -> RenderedPane? = { _ in nil }
    public var cancelRenders: @Sendable () -> Void = {}
    /// `.shown` and `.failed`, after the snapshot says so.
    public var report: @Sendable (StageEffect) -> Void = { _ in }
    /// The full-wall page `Scene` is up as `Frame`: its neighbours may be drawn ahead.
    public var prerender: @Sendable (Scene, Frame?) -> Void = { _, _ in }
    /// A transition's frame drawn ahead of the turn, if there is one.
    public var drawnAhead: @Sendable (PageTransition, Double, Frame, Frame) -> Frame? = { _, _, _, _ in nil }
    /// The output looked again at its display.
    public var outputChanged: @Sendable (DisplayMode, Bool) -> Void = { _, _ in }
    /// The watchdog's ping reached the loop.
    public var ping: @Sendable () -> Void = {}
    public var log: @Sendable (String) -> Void = { _ in }

    public init(render: @escaping @Sendable (RenderRequest) -> Result<RenderedPane, StageFailure>) { self.render = render }
}

/// What the loop last published, for readers on other threads (never waiting for it).
public struct StageSnapshot: Sendable {
    public var plan: WallPlan?
    public var scene: Scene = .idle
    public var isTransitioning = false
    public var boxes: [PixelRect?] = []
    public var mode: DisplayMode
    public var connected: Bool
    public var fallback: PageTransition?
    /// Pane 0's still frame (the whole wall's, in a `full` plan).
    public var firstFrame: Frame?
}

/// The one owner of the output (issue 26): a thread that is the only code that presents,
/// paced by the present itself (a KMS flip, the virtual display's refresh). Everything else
/// posts to its mailbox and never waits for it. At each refresh where something changed it
/// composes every pane's picture — page frames drawn off the loop, moving sources' frames
/// due at that refresh, transitions, ink and pointers, the corner code — into the back buffer.
public final class DisplayLoop: Sendable {
    enum Message: Sendable {
        case event(StageEvent)
        case attach(Int, any PaneVideoSource)
        case detach(Int)
        case ping
        case stop
    }

    /// What the loop's thread and the others share.
    final class Shared: Sendable {
        let mailbox = Mailbox<Message>()
        let published: Mutex<StageSnapshot>
        let counters = Mutex<(turns: Int, presents: Int, commitLead: Double)>((0, 0, 0))
        /// An ink change is in the mailbox already (pointer moves come faster than refreshes:
        /// one is enough until the loop drains it).
        let inkPosted = Atomic<Bool>(false)
        let renders = RenderPool(name: "lectern.pages", width: DisplayLoop.renderThreads)
        init(_ s: StageSnapshot) { published = Mutex(s) }
    }
    private let shared: Shared
    private var mailbox: Mailbox<Message> { shared.mailbox }
    static let renderThreads = 2

    /// `clock`: the time the core and transitions count on (monotonic seconds; tests inject one).
    public init(
        output: any Output, core: StageCore, ink: InkOverlay, hooks: DisplayHooks,
        clock: @escaping @Sendable () -> Double = { MonotonicClock.now() }
    ) {
        let shared = Shared(StageSnapshot(mode: core.mode, connected: core.connected))
        self.shared = shared
        nonisolated(unsafe) let owned = output   // from here on, touched by the loop's thread alone
        let thread = Thread {
            ThreadName.set("lectern.display")   // the name the kernel shows (/proc, top -H)
            var body = LoopBody(output: owned, core: core, ink: ink, hooks: hooks, clock: clock, shared: shared)
            body.run()
        }
        thread.name = "lectern.display"
        thread.qualityOfService = QualityOfService.userInteractive
        thread.start()
    }

    public func post(_ event: StageEvent) { mailbox.post(.event(event)) }

    /// The ink or a pointer changed: at most one such message waits in the mailbox.
    public func inkChanged() {
        guard shared.inkPosted.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        mailbox.post(.event(.inkChanged))
    }

    /// Hands the loop a moving source for `serial` (its frames are taken at each refresh).
    public func attach(serial: Int, _ source: any PaneVideoSource) { mailbox.post(.attach(serial, source)) }
    public func detach(serial: Int) { mailbox.post(.detach(serial)) }

    /// Wakes the loop for the watchdog (`hooks.ping` runs on it).
    public func ping() { mailbox.post(.ping) }

    /// Ends the loop's thread (after what was posted before).
    public func stop() {
        mailbox.post(.stop)
        shared.renders.stop(threads: Self.renderThreads)
    }

    public var snapshot: StageSnapshot { shared.published.withLock { $0 } }

    /// Turns of the loop so far (a present, or a wake-up with nothing to present): the
    /// watchdog's sign of life.
    public var turns: Int { shared.counters.withLock { $0.turns } }
    /// Compositions presented so far.
    public var presents: Int { shared.counters.withLock { $0.presents } }
    /// How long before its refresh the last held composition was committed (seconds; 0: none
    /// held yet): what a change beside a moving source must come before to make that refresh.
    public var commitLead: Double { shared.counters.withLock { $0.commitLead } }
}

/// The loop's own state, on its thread alone.
struct LoopBody {
    let output: any Output
    var core: StageCore
    let ink: InkOverlay
    let hooks: DisplayHooks
    let clock: @Sendable () -> Double
    var sources: [Int: any PaneVideoSource] = [:]
    /// The last frame taken from each source (shown again while none is due, and after the
    /// source ended until no pane shows it: a clip's last frame holds until the next plan).
    var lastVideo: [Int: Frame] = [:]
    var scratch: [Frame] = []
    var stopped = false
    /// Whether the last composition had ink moving by itself (one more follows when it stops).
    var inkWasMoving = false
    /// When to compose while a source moves (late in the refresh, not right after a present).
    var timing = ComposeTiming()
    /// When the last present returned (a refresh, and the wake-up after it): the grid the
    /// loop waits on when a refresh brings nothing new to present.
    var lastPresent: Double?
    /// Frames taken from each moving source so far (a pane's stamp in `contents`).
    var takes: [Int: Int] = [:]
    /// Refreshes a source that has given no frame yet waited to start with the others.
    var startWaits: [Int: Int] = [:]
    /// How many refreshes a new source waits, at most, to start with the others.
    static let startAlignment = 2
    /// What each back buffer holds, pane by pane: a present draws only what changed.
    var contents = BufferContents()
    /// The loop holds a drawn composition open (`HeldPresent`): a re-probe of the display
    /// asked meanwhile waits until the present returned.
    var holding = false
    var reprobeHeld = false
    let shared: DisplayLoop.Shared

    init(output: any Output, core: StageCore, ink: InkOverlay, hooks: DisplayHooks, clock: @escaping @Sendable () -> Double, shared: DisplayLoop.Shared) {
        self.output = output; self.core = core; self.ink = ink; self.hooks = hooks; self.clock = clock; self.shared = shared
    }

    mutating func run() {
        let mailbox = shared.mailbox
        let post: @Sendable (StageEvent) -> Void = { mailbox.post(.event($0)) }
        while !stopped {
            take(post: post)
            if stopped { break }
            // A source moving in a pane composes at every refresh: as late in it as it may
            // (ComposeTiming), taking what is posted until then, and at once when something
            // else changed (a page turn beside a clip is on the next refresh, as on a still wall).
            if core.movingInView, core.connected, output.isConnected {
                while !stopped, !core.dirty, let at = timing.composeAt(now: MonotonicClock.now(), period: core.mode.frameInterval) {
                    mailbox.wait(seconds: at - MonotonicClock.now())
                    take(post: post)
                }
                if stopped { break }
            }
            let now = clock()
            if let c = core.compose(now: now) {
                let period = core.mode.frameInterval
                let refresh = timing.nextRefresh(now: MonotonicClock.now(), period: period)
                let taken = takeVideo(c, refresh: refresh, period: period)
                if !c.changed && taken.isEmpty {
                    // Only moving sources in view and none has a new frame for this refresh:
                    // the output keeps its picture, and the loop looks again at the next one.
                    publish()
                    shared.counters.withLock { $0.turns += 1 }
                    mailbox.wait(seconds: untilNextRefresh(period))
                    continue
                }
                timing.composing(for: refresh)
                // While a source moves, held open until just before its refresh: a turn
                // meanwhile is drawn into it and makes that refresh (`HeldPresent`).
                let holds = core.movingInView && core.connected && output.isConnected
                let hold = holds ? timing.commitAt(now: MonotonicClock.now(), refresh: refresh, period: period) : nil
                timing.drew(present(c, holdUntil: hold, post: post))
                let shownAt = MonotonicClock.now()
                lastPresent = shownAt
                let lead = hold.map { refresh - $0 }
                shared.counters.withLock {
                    $0.presents += 1; $0.turns += 1
                    if let lead { $0.commitLead = lead }
                }
                timing.shown(at: shownAt, period: core.mode.frameInterval)
                for s in taken { sources[s]?.presented(at: shownAt) }
                let moving = inkMoves(c)
                if moving || inkWasMoving { _ = core.handle(.inkChanged, now: now) }
                inkWasMoving = moving
                carry(core.handle(.presented, now: clock()), post: post)
                publish()
                // No display: presents return at once; the refresh is waited out here.
                if !core.connected || !output.isConnected { mailbox.wait(seconds: core.mode.frameInterval) }
            } else {
                publish()
                shared.counters.withLock { $0.turns += 1 }
                mailbox.wait(seconds: 0.25)
            }
        }
    }

    /// Everything posted so far, handled in order.
    mutating func take(post: @escaping @Sendable (StageEvent) -> Void) {
        // Cleared before the drain: a change after it posts again (a change before it is
        // drawn anyway: the ink is read when composing, after the drain).
        shared.inkPosted.store(false, ordering: .releasing)
        for m in shared.mailbox.drain() {
            switch m {
            case .event(let e): carry(core.handle(e, now: clock()), post: post)
            case .attach(let serial, let s):
                sources[serial] = s
                carry(core.handle(.sourceAttached(serial: serial), now: clock()), post: post)
            case .detach(let serial):
                // The last frame stays until no pane shows it (`present` lets it go).
                sources[serial] = nil
                startWaits[serial] = nil
                carry(core.handle(.sourceEnded(serial: serial), now: clock()), post: post)
            case .ping: hooks.ping()
            case .stop: stopped = true
            }
        }
    }

    func publish() {
        let s = StageSnapshot(
            plan: core.plan, scene: core.scene, isTransitioning: core.isTransitioning, boxes: core.boxes, mode: core.mode,
            connected: core.connected, fallback: core.fallback, firstFrame: core.panes.first?.frame)
        shared.published.withLock { $0 = s }
    }

    mutating func carry(_ effects: [StageEffect], post: @escaping @Sendable (StageEvent) -> Void) {
        for effect in effects {
            switch effect {
            case .render(let request):
                if let hit = hooks.cached(request) {
                    // In the cache: handed to the core at once, composed at this refresh.
                    carry(core.handle(.rendered(request: request.id, .success(hit)), now: clock()), post: post)
                    continue
                }
                let render = hooks.render
                shared.renders.submit { post(.rendered(request: request.id, render(request))) }
            case .cancelRenders: hooks.cancelRenders()
            case .shown, .failed:
                publish()
                hooks.report(effect)
            case .prerender(let scene): hooks.prerender(scene, core.panes.first?.frame)
            case .resizeSource(let serial, let w, let h): sources[serial]?.resize(width: w, height: h)
            case .stopSource(let serial):
                sources[serial] = nil
                lastVideo[serial] = nil
            case .reprobe:
                if holding {
                    reprobeHeld = true   // not with the output's buffer in hand (KMS holds its lock)
                    continue
                }
                let changed: Bool
                do { changed = try output.reprobe() } catch {
                    hooks.log("display: \(error)")
                    changed = false
                }
                let mode = output.mode, on = output.isConnected
                carry(core.handle(.output(mode, connected: on, changed: changed), now: clock()), post: post)
                publish()
                hooks.outputChanged(mode, on)
            }
        }
    }

    /// Whether a pointer's trail or fade over a shown page moves by itself.
    func inkMoves(_ c: Composition) -> Bool {
        c.panes.contains { if case .frame(_, let s, _) = $0.content { return ink.animating(s) } else { return false } }
    }

    /// Takes from each moving source in `c` the frame due at `refresh` (never waiting: nil
    /// keeps the pane's last frame); the sources that gave a new one.
    ///
    /// A source that has given no frame yet starts at a refresh where one that has gives a
    /// new frame (waiting `startAlignment` refreshes at most): two clips of one rate then
    /// change on the same refreshes, and one present draws both, where clips changing on
    /// alternate refreshes cost a present each, every pane drawn each time (two back buffers).
    mutating func takeVideo(_ c: Composition, refresh: Double, period: Double) -> [Int] {
        var serials: [Int] = []
        for p in c.panes {
            if case .video(let serial) = p.content, sources[serial] != nil, !serials.contains(serial) { serials.append(serial) }
        }
        let started = serials.filter { takes[$0] != nil }
        var taken: [Int] = []
        for serial in started + serials.filter({ takes[$0] == nil }) {
            if takes[serial] == nil {
                let waited = startWaits[serial, default: 0]
                guard started.isEmpty || !taken.isEmpty || waited >= Self.startAlignment else {
                    startWaits[serial] = waited + 1
                    continue
                }
            }
            guard let f = sources[serial]?.frame(forRefreshAt: refresh, refreshPeriod: period) else { continue }
            lastVideo[serial] = f
            takes[serial, default: 0] += 1
            taken.append(serial)
        }
        return taken
    }

    /// Seconds until just after the next refresh, on the grid of the last present's return.
    func untilNextRefresh(_ period: Double) -> Double {
        let now = MonotonicClock.now()
        guard let last = lastPresent, now >= last else { return period }
        let k = ((now - last) / period).rounded(.down) + 1
        return max(0.0005, last + k * period - now)
    }
}
