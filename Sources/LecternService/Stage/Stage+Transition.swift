import Dispatch
import Foundation
import LecternModel
import LecternPipeline
import Synchronization

/// Page transitions on the wall (docs/protocol.md §21): played by the display loop inside
/// a pane, one step a refresh (`StageCore`). The first frame of a transition to a
/// neighbouring page is drawn ahead here, in the background, so that turn costs a copy.
extension Stage {
    /// The room's choice for pages without a `/Trans` of their own: nil (off, the default)
    /// or a cross-fade. Posted, never waited for.
    public func setFallbackTransition(_ t: PageTransition?) {
        guard fallbackLocked != t else { return }
        fallbackLocked = t
        loop.post(.fallbackTransition(t))
        let s = loop.snapshot
        if case .page = s.scene, s.plan?.layout == .full, let f = s.firstFrame { prepareFirstFrames(after: s.scene, shown: f) }
    }

    public var fallbackTransition: PageTransition? { fallbackLocked }

    /// First frames of transitions that were drawn ahead of their turn (tests, the bench).
    public var firstFramesDrawnAhead: Int { firstFrames.usedCount }

    /// Blocks until the first frames being drawn ahead are ready (tests, the bench).
    public func waitForFirstFrames() {
        compositor.waitForPrerender()
        firstFrames.queue.sync {}
    }

    /// Whether a transition is being played now (tests, the bench).
    public var isTransitioning: Bool { loop.snapshot.isTransitioning }

    /// After `scene` went on the output as `frame`: draws, in the background, the first frame
    /// of the transition to each neighbouring page that would play one (once the neighbours
    /// are prerendered), so that turn presents it with a copy, like a plain turn.
    func prepareFirstFrames(after scene: Scene, shown frame: Frame) {
        let generation = firstFrames.reset()
        guard case .page(let content, let page) = scene else { return }
        let fallback = self.fallbackLocked, period = loop.snapshot.mode.frameInterval, compositor = self.compositor
        let firstFrames = self.firstFrames
        firstFrames.queue.async {
            compositor.waitForPrerender()
            var ready: [TransitionFirstFrames.Entry] = []
            for n in [page + 1, page - 1] where n >= 1 && firstFrames.isCurrent(generation) {
                let next = Scene.page(content: content, page: n)
                guard let cached = compositor.cachedPage(content: content, page: n),
                    let t = TransitionRun.choose(from: scene, to: next, pageTransition: cached.transition, fallback: fallback)
                else { continue }
                let to = cached.frame
                guard to.width == frame.width, to.height == frame.height else { continue }
                let p = TransitionRun.firstProgress(t, refreshPeriod: period)
                let out = Frame(width: frame.width, height: frame.height)
                TransitionBlend.draw(t, progress: p, from: frame, to: to, into: out)
                ready.append(.init(from: frame, to: to, transition: t, progress: p, frame: out))
            }
            firstFrames.store(ready, generation: generation)
        }
    }
}

/// First frames of transitions drawn ahead of the turn (`Stage.prepareFirstFrames`): at most
/// one per neighbouring page, for the frame on the output now; a newer show drops them.
final class TransitionFirstFrames: Sendable {
    struct Entry: Sendable {
        let from: Frame
        let to: Frame
        let transition: PageTransition
        let progress: Double
        let frame: Frame
    }

    let queue = DispatchQueue(label: "lectern.transition.ahead", qos: .utility)
    private struct State {
        var entries: [Entry] = []
        var generation = 0
        /// First frames presented from here (tests, the bench).
        var used = 0
    }
    private let state = Mutex(State())

    /// Drops what is ready; returns the generation the next `store` must carry.
    func reset() -> Int {
        state.withLock {
            $0.generation += 1
            $0.entries = []
            return $0.generation
        }
    }

    func isCurrent(_ g: Int) -> Bool { state.withLock { g == $0.generation } }

    func store(_ ready: [Entry], generation g: Int) {
        state.withLock { if g == $0.generation { $0.entries = ready } }
    }

    func take(from: Frame, to: Frame, transition: PageTransition, progress: Double) -> Frame? {
        state.withLock { state in
            guard let e = state.entries.first(where: { $0.from === from && $0.to === to && $0.transition == transition && $0.progress == progress })
            else { return nil }
            state.used += 1
            return e.frame
        }
    }

    var usedCount: Int { state.withLock { $0.used } }
}
