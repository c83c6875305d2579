import Dispatch
import Foundation
import LecternModel
import LecternSystem
import LecternRender
import Synchronization

/// Turns a `Scene` into a finished output frame: the one frame pipeline every output and
/// `lectern render` share. Page frames are cached, and the neighbours of the page on
/// screen are prerendered in the background (next first, then previous), so turning to a
/// neighbour needs no rendering.
///
/// What changes (the idle screen and its frame, the counters, the prerender generation) is
/// behind `state` (a `Mutex`); the caches, `SlowPages` and the workers lock inside.
public final class Compositor: Sendable {
    public struct Settings: Equatable, Sendable {
        public var width: Int
        public var height: Int
        public var background: RGB
        public var overscanPercent: Double
        public init(width: Int, height: Int, background: RGB = .black, overscanPercent: Double = 0) {
            self.width = width; self.height = height
            self.background = background; self.overscanPercent = overscanPercent
        }
        /// The same look at another size (another display mode, a preview).
        public func sized(width: Int, height: Int) -> Settings {
            var s = self
            s.width = width; s.height = height
            return s
        }
        var look: PageCache.Look {
            PageCache.Look(width: width, height: height, background: background, overscanPercent: overscanPercent)
        }
    }

    public let settings: Settings
    public let cache: PageCache
    /// Page previews (§13) are kept apart, so that viewers asking for pages never evict the
    /// wall's shown and prerendered pages from `cache`.
    public let previewCache: PageCache
    public static let previewCacheBytes = 24 << 20
    let documents: @Sendable (String) throws -> PDFDocument
    /// Where a render worker finds the PDF of a content id, without this process opening it.
    let locate: @Sendable (String) throws -> String
    /// How many pages a stored deck has (from what the store knows, without opening it):
    /// prerendering stops at the deck's ends.
    let pageCount: @Sendable (String) -> Int?
    private struct State {
        var idle: IdleScreen
        var idleFrame: Frame?
        var prerenders = 0
        var renders = 0
        var prerenderGeneration = 0
        /// Renders that overran and still run (in-process only: a worker's are killed).
        var overrunning = 0
        /// Bounded renders started, and those running now.
        var attempts = 0
        var active = 0
    }
    private let state: Mutex<State>
    private let prerenderQueue = DispatchQueue(label: "lectern.prerender", qos: .utility)
    private let prerenderGroup = DispatchGroup()
    /// The render budget: seconds a page may take to draw (nil: no limit, `lectern render`).
    public let budget: Double?
    /// Lets go of an opened document (its render overran: later pages open it afresh).
    private let forget: @Sendable (String) -> Void
    /// Pages whose render overran the budget or the worker's limits: never rendered again
    /// (shown from the cache only, if their render finished after all), never prerendered.
    public let slow: SlowPages
    /// Where pages are drawn when there is a budget: nil, on a thread of this process
    /// (which can't stop poppler: an overrunning render runs on); else in worker
    /// processes that are killed past it.
    public let workers: RenderWorkers?

    typealias Part = PagePart

    /// `documents` opens the document with a content id (throwing `ContentError`) for pages
    /// drawn in this process; `locate` gives its path for pages drawn in a worker (nil: the
    /// opened document's path — the service passes the store's, so it never opens a PDF for
    /// a worker's page). `budget` bounds each render (see `frame(for:)`), `forget` drops an
    /// opened document after a render of it overran.
    public init(
        settings: Settings, idle: IdleScreen, cacheBytes: Int = 96 << 20, budget: Double? = nil,
        forget: @escaping @Sendable (String) -> Void = { _ in },
        workers: RenderWorkers? = nil, slow: SlowPages = SlowPages(),
        locate: (@Sendable (String) throws -> String)? = nil,
        pageCount: (@Sendable (String) -> Int?)? = nil,
        documents: @escaping @Sendable (String) throws -> PDFDocument
    ) {
        self.settings = settings
        self.workers = workers
        self.slow = slow
        self.state = Mutex(State(idle: idle))
        self.cache = PageCache(capacityBytes: cacheBytes)
        self.previewCache = PageCache(capacityBytes: min(cacheBytes, Self.previewCacheBytes))
        self.budget = budget
        self.forget = forget
        self.documents = documents
        self.locate = locate ?? { try documents($0).path }
        self.pageCount = pageCount ?? { try? documents($0).pageCount }
    }

    /// The same pipeline for another output size (a display with another mode was plugged).
    public func resized(width: Int, height: Int) -> Compositor {
        let c = Compositor(
            settings: settings.sized(width: width, height: height), idle: idleScreen, cacheBytes: cache.capacityBytes,
            budget: budget, forget: forget, workers: workers, slow: slow, locate: locate, pageCount: pageCount, documents: documents)
        return c
    }

    /// Renders one page of `document` into a new frame of this compositor's size.
    /// `part`: only that part of the page, fitted as a page would be (beamer notes decks).
    public static func renderPage(_ document: PDFDocument, page: Int, settings: Settings, part: PagePart = .whole) throws -> Frame {
        let frame = Frame(width: settings.width, height: settings.height, color: settings.background)
        try renderPage(document, page: page, into: frame, settings: settings, part: part)
        return frame
    }

    /// Draws one page (or `part` of it) of `document` into `frame` (of the settings'
    /// size): the background, then the page fitted (what the render worker does in a
    /// frame it is given). Returns where the page (the part) landed: its box.
    @discardableResult
    public static func renderPage(_ document: PDFDocument, page: Int, into frame: Frame, settings: Settings, part: PagePart = .whole) throws -> PixelRect {
        let shape = part.shape(of: try document.shape(page: page))
        let rect = Fit.rect(
            for: shape, width: settings.width, height: settings.height,
            overscanPercent: settings.overscanPercent)
        frame.fill(settings.background)
        try document.render(page: page, into: frame, rect: rect, part: part)
        return rect
    }

    /// A page drawn in this process, with its box and its transition (what a worker reports).
    static func drawPage(_ document: PDFDocument, page: Int, settings: Settings, part: PagePart) throws -> RenderedPage {
        let frame = Frame(width: settings.width, height: settings.height, color: settings.background)
        let box = try renderPage(document, page: page, into: frame, settings: settings, part: part)
        return RenderedPage(frame: frame, pageRect: box, transition: document.transition(page: page))
    }

    /// The frame for `scene`, from the cache when it is there.
    public func frame(for scene: Scene) throws -> Frame { try page(for: scene).frame }

    /// `scene` at the output's size, from the cache when it is there: the frame, where the
    /// page sits in it, and the page's transition (a card over a page: the page's box, no
    /// transition of its own).
    public func page(for scene: Scene) throws -> RenderedPage {
        switch scene {
        case .idle:
            let settings = self.settings
            return state.withLock { s in
                if let f = s.idleFrame { return RenderedPage(frame: f, pageRect: nil) }
                let f = Frame(width: settings.width, height: settings.height, color: settings.background)
                s.idle.draw(into: f, overscanPercent: settings.overscanPercent)
                s.idleFrame = f
                return RenderedPage(frame: f, pageRect: nil)
            }
        case .blank(let color):
            return RenderedPage(frame: Frame(width: settings.width, height: settings.height, color: color), pageRect: nil)
        case .page(let content, let page):
            return try cachedPage(content, page, settings) {
                state.withLock { $0.renders += 1 }
            }
        case .pagePart(let content, let page, let part):
            return try cachedPage(content, page, settings, part: part) {
                state.withLock { $0.renders += 1 }
            }
        case .card(let card, let base):
            // Drawn on a copy: the cached page stays clean.
            let b = try page(for: base)
            let f = b.frame.clone()
            WallCardDrawing.draw(card, into: f, overscanPercent: settings.overscanPercent)
            return RenderedPage(frame: f, pageRect: b.pageRect)
        }
    }

    /// A page with `look`, from the cache or rendered into it (`rendered` runs then): on
    /// the wall's worker, or the background one (previews, prerendering).
    func cachedPage(
        _ content: String, _ page: Int, _ look: Settings, part: Part = .whole, background: Bool = false, keep: Bool = true, rendered: () -> Void = {}
    ) throws -> RenderedPage {
        let key = PageCache.Key(content: content, page: page, look: look.look, part: part)
        if let p = cache.lookup(key) { return p }
        if let board = Whiteboard.background(content) {   // a whiteboard: nothing to render, kept like a page
            let f = Frame(width: look.width, height: look.height, color: look.background)
            let box = Fit.rect(for: Whiteboard.shape, width: look.width, height: look.height, overscanPercent: look.overscanPercent)
            f.fill(box, board)
            let p = RenderedPage(frame: f, pageRect: box)
            cache.insert(p, for: key)
            return p
        }
        let p = try bounded(content, page, look, part: part, key: key, background: background)
        rendered()
        if keep { cache.insert(p, for: key) }
        return p
    }

    /// The page a render request of the display loop asks for, if the cache has it: looked up
    /// on the loop's thread, so it never renders, never opens a document and takes no lock
    /// but the cache's (held only for its dictionary). Only pages (and whiteboards): anything
    /// else is drawn on a render thread. `wholeOutput`: the wall's look (with the overscan);
    /// else a pane's (`paneFrame`).
    public func cachedPage(for scene: Scene, width: Int, height: Int, wholeOutput: Bool) -> RenderedPage? {
        let look: Settings
        if wholeOutput {
            guard width == settings.width, height == settings.height else { return nil }
            look = settings
        } else {
            look = paneLook(width: width, height: height)
        }
        let key: PageCache.Key
        switch scene {
        case .page(let content, let page): key = PageCache.Key(content: content, page: page, look: look.look)
        case .pagePart(let content, let page, let part): key = PageCache.Key(content: content, page: page, look: look.look, part: part)
        default: return nil
        }
        return cache.lookup(key)
    }

    /// Renders a page within the budget. The render runs on its own thread while this one
    /// waits at most `budget` seconds: past that, the page is marked slow, its document is
    /// forgotten (the overrunning render holds its lock) and `ContentError.tooSlow` is
    /// thrown. The abandoned render runs on; if it ever finishes, its frame goes into the
    /// cache, and its memory back when it ends.
    private func bounded(_ content: String, _ page: Int, _ look: Settings, part: Part = .whole, key: PageCache.Key, background: Bool) throws -> RenderedPage {
        guard let budget else { return try Self.drawPage(documents(content), page: page, settings: look, part: part) }
        switch slow.reason(content: content, page: page) {
        case .slow: throw ContentError.tooSlow(page: page, seconds: budget)
        case .memory(let mb): throw ContentError.overLimits(page: page, megabytes: mb)
        case nil: break
        }
        if let workers {
            return try inWorker(background ? workers.background : workers.wall, content, page, look, part: part, budget: budget)
        }
        let job = RenderJob()
        state.withLock { s in
            s.attempts += 1; s.active += 1
        }
        // A thread of its own, not a dispatch queue's: a render that never ends must not
        // take one of the few threads dispatch runs its queues on (two on a 2-core board).
        let thread = Thread { [self, documents] in
            ThreadName.set("lectern.render")   // the name the kernel shows (/proc, top -H)
            let result = Result { try Self.drawPage(documents(content), page: page, settings: look, part: part) }
            let abandoned = job.finish(result)
            if abandoned, case .success(let f) = result { cache.insert(f, for: key) }   // keep what it made after all
            state.withLock { s in
                s.active -= 1; if abandoned { s.overrunning -= 1 }
            }
        }
        thread.name = "lectern.render"
        thread.start()
        if let result = job.wait(seconds: budget) { return try result.get() }
        state.withLock { $0.overrunning += 1 }
        slow.insert(content: content, page: page)
        forget(content)
        throw ContentError.tooSlow(page: page, seconds: budget)
    }

    /// Renders a page in a worker process: past the budget or the worker's limits, the
    /// worker is killed (a fresh one takes its place) and the page is marked slow.
    private func inWorker(_ worker: RenderWorker, _ content: String, _ page: Int, _ look: Settings, part: Part, budget: Double) throws -> RenderedPage {
        let path = try locate(content)
        state.withLock { s in
            s.attempts += 1; s.active += 1
        }
        defer { state.withLock { $0.active -= 1 } }
        do {
            return try worker.render(path: path, page: page, settings: look, part: part, budget: budget)
        } catch let e as ContentError {
            switch e {
            case .tooSlow: slow.insert(content: content, page: page)
            case .overLimits(_, let mb): slow.insert(content: content, page: page, reason: .memory(megabytes: max(1, mb)))
            default: break
            }
            throw e
        }
    }

    /// Stops the page the wall's worker is drawing (a newer screen change overtook the
    /// show that asked for it): the show gets `RenderWorker.Cancelled`, the page isn't
    /// marked slow. In-process renders can't be stopped.
    public func cancelWallRender() { workers?.wall.cancel() }

    /// Whether `page` of `content` overran the render budget.
    func isSlow(content: String, page: Int) -> Bool { slow.contains(content: content, page: page) }

    /// Renders that overran the budget and are still running.
    public var overrunningRenders: Int { state.withLock { $0.overrunning } }
    /// Renders within the budget started so far, and running now (overrunning or not).
    public var renderAttempts: Int { state.withLock { $0.attempts } }
    public var activeRenders: Int { state.withLock { $0.active } }

    /// Page `page` of `content` as the output would show it (same background, bars and
    /// overscan), at `width`×`height`: the page rendered at that size by the same pipeline
    /// — sharper and cheaper than scaling the full frame down — and kept in the page cache.
    /// `part`: only that part of the page (a beamer deck's slide or notes half).
    /// `keep: false`: not put in the page cache (viewers' images are kept encoded, §24.2,
    /// and must not push the wall's prerendered pages out).
    /// The wall's cache is read (a full-size preview of a shown page is its frame) but never
    /// written: a preview made is kept in `previewCache` (`keep`), which only previews evict.
    public func preview(content: String, page: Int, width: Int, height: Int, part: PagePart = .whole, keep: Bool = true) throws -> Frame {
        let look = settings.sized(width: width, height: height)
        let key = PageCache.Key(content: content, page: page, look: look.look, part: part)
        if cache.contains(key), let p = cache.lookup(key) { return p.frame }
        if let p = previewCache.lookup(key) { return p.frame }
        let p = try cachedPage(content, page, look, part: part, background: true, keep: false)
        if keep { previewCache.insert(p, for: key) }
        return p.frame
    }

    /// Changes what the idle screen says (room renamed, address changed).
    public func setIdle(_ screen: IdleScreen) {
        state.withLock { s in if screen != s.idle { s.idle = screen; s.idleFrame = nil } }
    }

    public var idleScreen: IdleScreen {
        state.withLock { $0.idle }
    }

    /// Starts rendering the pages next to `page` in the background: next first, then
    /// previous. A newer call supersedes pages an older one had not started yet. The deck
    /// is not opened here for its page count: past the last page, the renderer says so.
    public func prerenderNeighbours(content: String, page: Int, part: PagePart = .whole) {
        let generation = state.withLock { s in
            s.prerenderGeneration += 1
            return s.prerenderGeneration
        }
        prerenderGroup.enter()
        prerenderQueue.async { [self] in
            defer { prerenderGroup.leave() }
            let last = pageCount(content) ?? Int.max
            for p in [page + 1, page - 1] where p >= 1 && p <= last {
                let current = state.withLock { generation == $0.prerenderGeneration }
                guard current else { return }
                let skip = slow.contains(content: content, page: p)
                let key = PageCache.Key(content: content, page: p, look: settings.look, part: part)
                if skip || cache.contains(key) { continue }
                guard let f = try? bounded(content, p, settings, part: part, key: key, background: true) else { continue }
                cache.insert(f, for: key)
                state.withLock { $0.prerenders += 1 }
            }
        }
    }

    /// Blocks until every prerender started so far has finished.
    public func waitForPrerender() { prerenderGroup.wait() }

    /// Pages rendered in the background so far.
    public var prerenderCount: Int { state.withLock { $0.prerenders } }
    /// Pages rendered on demand (cache misses) so far.
    public var renderCount: Int { state.withLock { $0.renders } }
}

/// The render worker processes of a service: the wall's (the pages the room shows) and
/// the background's (prerendering, page previews), so a bomb among the neighbours or in a
/// phone's preview never holds up the page the room asked for, and a bomb on the wall
/// never holds up previews.
public struct RenderWorkers: Sendable {
    public let wall: RenderWorker
    public let background: RenderWorker
    public init(wall: RenderWorker, background: RenderWorker) { self.wall = wall; self.background = background }

    public init(executable: String, limits: RenderWorker.Limits) {
        self.init(
            wall: RenderWorker(name: "wall", executable: executable, limits: limits),
            background: RenderWorker(name: "background", executable: executable, limits: limits))
    }

    public func stop() {
        wall.stop()
        background.stop()
    }
}

/// One bounded render: the renderer finishes it, the waiter waits for it or gives up.
private final class RenderJob: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private struct State {
        var result: Result<RenderedPage, Error>?
        var abandoned = false
    }
    private let state = Mutex(State())

    /// Sets the result; true when the waiter had given up already.
    func finish(_ r: Result<RenderedPage, Error>) -> Bool {
        state.withLock {
            $0.result = r
            done.signal()
            return $0.abandoned
        }
    }

    /// The result within `seconds`, or nil (then the job is abandoned).
    func wait(seconds: Double) -> Result<RenderedPage, Error>? {
        _ = done.wait(timeout: .now() + seconds)
        return state.withLock {
            if $0.result == nil { $0.abandoned = true }
            return $0.result
        }
    }
}
