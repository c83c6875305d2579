import Dispatch
import Foundation
import LecternCore
import LecternPipeline

/// A page transition the stage is playing: its timeline and the two cached frames.
struct StageAnimation {
    let serial: Int
    var run: TransitionRun
    let from: Frame
    let to: Frame
}

/// Page transitions on the wall (docs/protocol.md §21). The first frame of a transition is
/// drawn in the very present a plain turn would have made (no added latency); the frames
/// after it are drawn at each refresh by a thread of their own that takes the stage's queue
/// one frame at a time, so a newer turn gets the queue within a refresh and ends the
/// transition (`stopAnimation`): that turn is then a cut.
extension Stage {
    /// The room's choice for pages without a `/Trans` of their own: nil (off, the default)
    /// or a cross-fade. Queued, not waited for: the room's loop sets it, and a clip holds the
    /// stage for as long as it plays (a looping one until it is stopped — through that loop).
    public func setFallbackTransition(_ t: PageTransition?) {
        queue.async { [self] in
            guard fallback != t else { return }
            fallback = t
            if let shown = presented, animation == nil { prepareFirstFrames(after: current, shown: shown) }
        }
    }

    public var fallbackTransition: PageTransition? { queue.sync { fallback } }

    /// First frames of transitions that were drawn ahead of their turn (tests, the bench).
    public var firstFramesDrawnAhead: Int { firstFrames.usedCount }

    /// Blocks until the first frames being drawn ahead are ready (tests, the bench).
    public func waitForFirstFrames() {
        compositor.waitForPrerender()
        firstFrames.queue.sync {}
    }

    /// Whether a transition is being played now (tests, the bench).
    public var isTransitioning: Bool { queue.sync { animation != nil } }

    /// On `queue`: the transition to play from `old` (on screen, showing `from`) to `scene`.
    func transition(from current: Scene, to scene: Scene, old: Frame?, new: Frame) -> PageTransition? {
        guard let old, old.width == new.width, old.height == new.height, old !== new else { return nil }
        guard let (content, page) = scene.deckPage, current.deckPage != nil else { return nil }
        return TransitionRun.choose(
            from: current, to: scene, pageTransition: compositor.pageTransition(content: content, page: page), fallback: fallback)
    }

    /// On `queue`: presents the transition's first frame and leaves the rest to the animator.
    func presentTransition(_ t: PageTransition, from: Frame, to: Frame, scene: Scene) throws {
        var run = TransitionRun(t, refreshPeriod: output.mode.frameInterval)
        guard case .frame(let p) = run.next(now: clock()) else { return try output.present(to) }
        if p >= 1 {
            try present(to, scene: scene)
        } else if let ready = firstFrames.take(from: from, to: to, transition: t, progress: p) {
            try output.present(ready)   // drawn ahead: the turn costs a copy, as a plain one
        } else {
            try output.present { TransitionBlend.draw(t, progress: p, from: from, to: to, into: $0) }
        }
        if run.finished { return }
        animationSerial += 1
        let serial = animationSerial
        animation = StageAnimation(serial: serial, run: run, from: from, to: to)
        let thread = Thread { [self] in
            while queue.sync(execute: { animateOneFrame(serial) }) {}
        }
        thread.name = "lectern.transition"
        thread.start()
    }

    /// On `queue`: the next frame of transition `serial`; false when it is over (or was ended).
    private func animateOneFrame(_ serial: Int) -> Bool {
        guard var a = animation, a.serial == serial else { return false }
        // No display: presents return at once, so nothing would pace the loop; the new page
        // is shown whole when a display comes back.
        guard output.isConnected else {
            animation = nil
            return false
        }
        guard case .frame(let p) = a.run.next(now: clock()) else {
            animation = nil
            return false
        }
        do {
            if p >= 1 {
                try present(a.to, scene: current)   // the new page whole, with its ink
            } else {
                try output.present { TransitionBlend.draw(a.run.transition, progress: p, from: a.from, to: a.to, into: $0) }
            }
        } catch {
            animation = nil
            return false
        }
        animation = a.run.finished ? nil : a
        return !a.run.finished
    }

    /// On `queue`, after `scene` went on the output as `frame`: draws, in the background, the
    /// first frame of the transition to each neighbouring page that would play one (once the
    /// neighbours are prerendered), so that turn presents it with a copy, like a plain turn.
    func prepareFirstFrames(after scene: Scene, shown frame: Frame) {
        let generation = firstFrames.reset()
        guard case .page(let content, let page) = scene else { return }
        let fallback = self.fallback, period = output.mode.frameInterval, compositor = self.compositor
        let firstFrames = self.firstFrames
        firstFrames.queue.async {
            compositor.waitForPrerender()
            var ready: [TransitionFirstFrames.Entry] = []
            for n in [page + 1, page - 1] where n >= 1 && firstFrames.isCurrent(generation) {
                let next = Scene.page(content: content, page: n)
                guard
                    let t = TransitionRun.choose(
                        from: scene, to: next, pageTransition: compositor.pageTransition(content: content, page: n), fallback: fallback),
                    let to = compositor.cachedFrame(content: content, page: n), to.width == frame.width, to.height == frame.height
                else { continue }
                let p = TransitionRun.firstProgress(t, refreshPeriod: period)
                let out = Frame(width: frame.width, height: frame.height)
                TransitionBlend.draw(t, progress: p, from: frame, to: to, into: out)
                ready.append(.init(from: frame, to: to, transition: t, progress: p, frame: out))
            }
            firstFrames.store(ready, generation: generation)
        }
    }

    /// On `queue`: ends the running transition; true when one was running (the caller then
    /// shows its scene as a cut: a turn during a transition jumps to its end).
    func stopAnimation() -> Bool {
        guard var a = animation else { return false }
        a.run.interrupt()
        animation = nil
        return true
    }
}

/// First frames of transitions drawn ahead of the turn (`Stage.prepareFirstFrames`): at most
/// one per neighbouring page, for the frame on the output now; a newer show drops them.
final class TransitionFirstFrames: @unchecked Sendable {
    struct Entry {
        let from: Frame
        let to: Frame
        let transition: PageTransition
        let progress: Double
        let frame: Frame
    }

    let queue = DispatchQueue(label: "lectern.transition.ahead", qos: .utility)
    private let lock = NSLock()
    private var entries: [Entry] = []
    private var generation = 0
    /// First frames presented from here (tests, the bench).
    private(set) var used = 0

    /// Drops what is ready; returns the generation the next `store` must carry.
    func reset() -> Int {
        lock.withLock {
            generation += 1
            entries = []
            return generation
        }
    }

    func isCurrent(_ g: Int) -> Bool { lock.withLock { g == generation } }

    func store(_ ready: [Entry], generation g: Int) {
        lock.withLock { if g == generation { entries = ready } }
    }

    func take(from: Frame, to: Frame, transition: PageTransition, progress: Double) -> Frame? {
        lock.withLock {
            guard let e = entries.first(where: { $0.from === from && $0.to === to && $0.transition == transition && $0.progress == progress })
            else { return nil }
            used += 1
            return e.frame
        }
    }

    var usedCount: Int { lock.withLock { used } }
}
