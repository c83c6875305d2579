import LecternModel

/// The stage's decisions (issue 26): which plan is on the wall, what each pane shows, which
/// page to render at what size, when a show is on the output, transitions inside a pane,
/// what to compose at the next refresh. A value: no threads, no clock, no I/O. The display
/// loop (`DisplayLoop`) feeds it events with the time and carries out its effects.
public struct StageCore: Sendable {
    /// One pane on the wall now.
    public struct Pane: Sendable {
        public var content: PaneContent
        /// Where the pane sits on the output.
        public var rect: PixelRect
        /// Its still picture (nil: a moving source, or nothing yet).
        public internal(set) var frame: Frame?
        /// Where the page sits in `frame` (nil: no page).
        var pageRect: PixelRect?
        var animation: Animation?
        /// A card over a moving source (`WallPlan.cards`): drawn at the pane's size, and its
        /// panel's place in it (what is copied over each frame of the source).
        var overlay: (frame: Frame, panel: PixelRect)?
        public var scene: Scene? { if case .scene(let s) = content { return s } else { return nil } }
    }

    struct Animation: Sendable {
        var run: TransitionRun
        let from: Frame
        let to: Frame
    }

    /// A show whose pages are being drawn.
    struct Pending: Sendable {
        var op: Int?
        var plan: WallPlan
        var rects: [PixelRect]
        /// Request id by pane, for the panes still drawing.
        var requests: [Int: Int]
        var ready: [Int: RenderedPane]
    }

    public private(set) var mode: DisplayMode
    public private(set) var connected = true
    public let background: RGB
    public let overscanPercent: Double
    /// The plan on the wall (nil: nothing shown yet).
    public private(set) var plan: WallPlan?
    public private(set) var panes: [Pane] = []
    var pending: Pending?
    var nextRequest = 1
    /// Something changed since the last composition.
    public private(set) var dirty = false
    /// Shows composed and waiting for their present, then reported.
    var composedShows: [(op: Int?, boxes: [PixelRect?])] = []
    var readyShows: [(op: Int?, boxes: [PixelRect?])] = []
    /// The full-wall page whose neighbours are drawn ahead once it is presented.
    var prerenderReady: Scene?
    var prerenderComposed: Scene?
    public private(set) var cornerCode: String?
    public private(set) var fallback: PageTransition?
    /// Moving sources attached (a pane shows one by its serial: `PaneContent.clip`).
    public private(set) var sources: Set<Int> = []

    public init(mode: DisplayMode, background: RGB = .black, overscanPercent: Double = 0, connected: Bool = true) {
        self.mode = mode
        self.background = background
        self.overscanPercent = overscanPercent
        self.connected = connected
    }

    /// Whether a page transition is playing in any pane.
    public var isTransitioning: Bool { panes.contains { $0.animation != nil } }

    /// The scene of pane 0 (today's one-pane wall), or `.idle` before any show.
    public var scene: Scene { panes.first?.scene ?? .idle }

    /// Every pane's page box on the output (nil: no page in it).
    public var boxes: [PixelRect?] { panes.map { Self.box(rect: $0.rect, pageRect: $0.pageRect, wholeOutput: $0.rect == fullRect) } }

    var fullRect: PixelRect { PixelRect(x: 0, y: 0, width: mode.width, height: mode.height) }
    /// Where a source over the whole wall goes: the safe area (the overscan around it is background).
    public var safeRect: PixelRect { Fit.safeArea(width: mode.width, height: mode.height, overscanPercent: overscanPercent) }

    /// Where a moving source in pane `pane` of `layout` is drawn, on a `mode` output: the pane
    /// (a `full` wall's one pane is its safe area, as a page is fitted in it). Its frames are
    /// made at this size (`StageEffect.resizeSource`; the shell's first guess uses it too).
    public static func sourceRect(layout: WallLayout, pane: Int, mode: DisplayMode, overscanPercent: Double) -> PixelRect {
        let rects = layout.paneRects(width: mode.width, height: mode.height, overscanPercent: overscanPercent)
        return rects[min(max(0, pane), rects.count - 1)]
    }

    func sourceRect(ofPane i: Int) -> PixelRect {
        Self.sourceRect(layout: plan?.layout ?? .full, pane: i, mode: mode, overscanPercent: overscanPercent)
    }

    /// Where each pane of `layout` sits. The whole wall is one frame of the output's size
    /// (the page fitted in the safe area inside it, as ever); panes are fitted in it.
    func rects(_ layout: WallLayout) -> [PixelRect] {
        layout == .full ? [fullRect] : layout.paneRects(width: mode.width, height: mode.height, overscanPercent: overscanPercent)
    }

    static func box(rect: PixelRect, pageRect: PixelRect?, wholeOutput: Bool) -> PixelRect? {
        guard let p = pageRect else { return nil }
        return PixelRect(x: rect.x + p.x, y: rect.y + p.y, width: p.width, height: p.height)
    }

    // MARK: events

    public mutating func handle(_ event: StageEvent, now: Double) -> [StageEffect] {
        switch event {
        case .show(let op, let plan): return show(op: op, plan)
        case .rendered(let id, let result): return rendered(id, result, now: now)
        case .presented:
            let done = composedShows
            composedShows = []
            let ahead = prerenderComposed
            prerenderComposed = nil
            // The neighbours are asked for first: whoever hears "shown" finds them on their way.
            return (ahead.map { [.prerender($0)] } ?? []) + done.map { .shown(op: $0.op, boxes: $0.boxes) }
        case .inkChanged:
            dirty = true
            return []
        case .cornerCode(let code):
            if code != cornerCode {
                cornerCode = code
                dirty = true
            }
            return []
        case .fallbackTransition(let t):
            fallback = t
            return []
        case .idleChanged:
            let shows = (pending?.plan ?? plan)?.panes.contains { $0 == .scene(.idle) } ?? false
            return shows ? reshow() : []
        case .displayEvent:
            return [.reprobe]
        case .output(let m, let on, let changed):
            let resized = m != mode
            mode = m
            connected = on
            guard on, changed || resized else { return [] }
            for i in panes.indices { panes[i].animation = nil }
            return reshow()
        case .sourceAttached(let serial):
            sources.insert(serial)
            dirty = true
            return sourceSizes(serial)
        case .sourceEnded(let serial):
            // Its pane keeps the last frame until the room's next plan replaces it.
            sources.remove(serial)
            dirty = true
            return []
        }
    }

    /// Shows what is shown (or being shown) again, at the output's size now.
    mutating func reshow() -> [StageEffect] {
        if let p = pending { return show(op: p.op, p.plan, replacing: true) }
        if let plan { return show(op: nil, plan, replacing: true) }
        return []
    }

    mutating func show(op: Int?, _ plan: WallPlan, replacing: Bool = false) -> [StageEffect] {
        var effects: [StageEffect] = []
        if let old = pending, !replacing {
            effects.append(.failed(op: old.op, .superseded))
        }
        if let old = pending, !old.requests.isEmpty { effects.append(.cancelRenders) }
        let rects = rects(plan.layout)
        var p = Pending(op: op, plan: plan, rects: rects, requests: [:], ready: [:])
        for (i, content) in plan.panes.enumerated() {
            let scene: Scene
            switch content {
            case .scene(let s): scene = s
            case .clip, .share:
                // A card over a moving source: drawn once, its panel copied over each frame.
                guard let card = plan.cards[i] else { continue }
                scene = .card(card, over: .blank(background))
            }
            let id = nextRequest
            nextRequest += 1
            p.requests[i] = id
            effects.append(
                .render(
                    RenderRequest(
                        id: id, pane: i, scene: scene, width: rects[i].width, height: rects[i].height, wholeOutput: plan.layout == .full)))
        }
        pending = p
        if p.requests.isEmpty { effects += commit() }
        return effects
    }

    mutating func rendered(_ id: Int, _ result: Result<RenderedPane, StageFailure>, now: Double) -> [StageEffect] {
        guard var p = pending, let pane = p.requests.first(where: { $0.value == id })?.key else { return [] }
        switch result {
        case .failure(let why):
            pending = nil
            return [.failed(op: p.op, why)]
        case .success(let r):
            guard r.frame.width == p.rects[pane].width, r.frame.height == p.rects[pane].height else {
                return []   // drawn for another mode: the reshow's request follows
            }
            p.requests[pane] = nil
            p.ready[pane] = r
            pending = p
            return p.requests.isEmpty ? commit() : []
        }
    }

    /// The pending show's panes are all drawn: they become the wall's, composed at the next
    /// refresh (a page turn in a pane that stays may play a transition).
    mutating func commit() -> [StageEffect] {
        guard let p = pending else { return [] }
        pending = nil
        var effects: [StageEffect] = []
        let sameLayout = plan?.layout == p.plan.layout
        var next: [Pane] = []
        for (i, content) in p.plan.panes.enumerated() {
            var pane = Pane(content: content, rect: p.rects[i], frame: p.ready[i]?.frame, pageRect: p.ready[i]?.pageRect, animation: nil)
            if content.sourceSerial != nil {
                // Its picture is the source's; a drawn frame is a card to go over it. Ink and
                // the pointer over a live share are in the pane's coordinates: its box is the pane.
                pane.overlay = pane.frame.map { f in
                    (f, WallCard.panelRect(width: f.width, height: f.height, overscanPercent: p.plan.layout == .full ? overscanPercent : 0))
                }
                pane.frame = nil
                pane.pageRect = nil
                if case .share = content { pane.pageRect = PixelRect(x: 0, y: 0, width: pane.rect.width, height: pane.rect.height) }
            }
            if sameLayout, i < panes.count, let r = p.ready[i], connected {
                let old = panes[i]
                if old.animation != nil {
                    // A turn during a transition: a cut to the newest page.
                } else if let from = old.frame, let scene = pane.scene, from !== r.frame, from.width == r.frame.width, from.height == r.frame.height,
                    let t = TransitionRun.choose(from: old.scene, to: scene, pageTransition: r.transition, fallback: fallback)
                {
                    pane.animation = Animation(run: TransitionRun(t, refreshPeriod: mode.frameInterval), from: from, to: r.frame)
                }
            }
            // (The source's rectangle follows the pane's: `sourceRect`.)
            if let serial = content.sourceSerial,
                !(i < panes.count && panes[i].content.sourceSerial == serial && panes[i].rect == pane.rect)
            {
                let r = Self.sourceRect(layout: p.plan.layout, pane: i, mode: mode, overscanPercent: overscanPercent)
                effects.append(.resizeSource(serial: serial, width: r.width, height: r.height))
            }
            next.append(pane)
        }
        panes = next
        plan = p.plan
        dirty = true
        readyShows.append((p.op, boxes))
        prerenderReady = nil
        if p.plan.layout == .full, let s = next[0].scene, s.deckPage != nil { prerenderReady = s }
        return effects
    }

    func sourceSizes(_ serial: Int) -> [StageEffect] {
        panes.indices.filter { panes[$0].content.sourceSerial == serial }.map {
            let r = sourceRect(ofPane: $0)
            return .resizeSource(serial: serial, width: r.width, height: r.height)
        }
    }

    // MARK: the refresh

    /// Whether a composition would be drawn at the next refresh.
    public var wantsRefresh: Bool {
        dirty || isTransitioning || movingInView
    }

    /// A moving source shows in a pane: every refresh may bring its frame.
    public var movingInView: Bool {
        panes.contains { $0.content.sourceSerial.map { sources.contains($0) } ?? false }
    }

    /// What to draw for the refresh after `now`, or nil when nothing changed. Advances the
    /// panes' transitions; the shows it holds are reported once it is presented
    /// (`.presented`).
    public mutating func compose(now: Double) -> Composition? {
        guard wantsRefresh else { return nil }
        let changed = dirty || isTransitioning
        dirty = false
        composedShows += readyShows
        readyShows = []
        if let s = prerenderReady {
            prerenderComposed = s
            prerenderReady = nil
        }
        var out: [ComposedPane] = []
        for i in panes.indices {
            let c = content(ofPane: i, now: now)
            var p = ComposedPane(rect: panes[i].rect, content: c)
            if case .video = c { p.rect = sourceRect(ofPane: i) }
            if case .share(_, let paused) = panes[i].content { p.paused = paused }
            p.overlay = panes[i].overlay
            out.append(p)
        }
        let allIdle = !panes.contains { $0.scene != .idle }
        return Composition(
            width: mode.width, height: mode.height, background: background, panes: out, cornerCode: allIdle ? nil : cornerCode, changed: changed)
    }

    mutating func content(ofPane i: Int, now: Double) -> ComposedPane.Content {
        let pane = panes[i]
        switch pane.content {
        case .clip(let serial), .share(let serial, _):
            // Before its source is attached, and after it ended: the last frame it gave, if any.
            return .video(serial: serial)
        case .scene(let scene):
            guard let frame = pane.frame else { return .empty }
            if var a = pane.animation {
                let step = a.run.next(now: now)
                panes[i].animation = a.run.finished ? nil : a
                if case .frame(let p) = step, p < 1 {
                    return .blend(a.run.transition, progress: p, from: a.from, to: a.to, scene: scene)
                }
            }
            return .frame(frame, scene: scene, pageRect: pane.pageRect)
        }
    }
}
