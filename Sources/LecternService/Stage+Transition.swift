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
    /// or a cross-fade.
    public func setFallbackTransition(_ t: PageTransition?) {
        queue.sync { fallback = t }
    }

    public var fallbackTransition: PageTransition? { queue.sync { fallback } }

    /// Whether a transition is being played now (tests, the bench).
    public var isTransitioning: Bool { queue.sync { animation != nil } }

    /// On `queue`: the transition to play from `old` (on screen, showing `from`) to `scene`.
    func transition(from current: Scene, to scene: Scene, old: Frame?, new: Frame) -> PageTransition? {
        guard let old, old.width == new.width, old.height == new.height, old !== new else { return nil }
        guard case .page(let content, let page) = scene, case .page = current else { return nil }
        return TransitionRun.choose(
            from: current, to: scene, pageTransition: compositor.pageTransition(content: content, page: page), fallback: fallback)
    }

    /// On `queue`: presents the transition's first frame and leaves the rest to the animator.
    func presentTransition(_ t: PageTransition, from: Frame, to: Frame) throws {
        var run = TransitionRun(t, refreshPeriod: output.mode.frameInterval)
        guard case .frame(let p) = run.next(now: clock()) else { return try output.present(to) }
        try output.present { TransitionBlend.draw(t, progress: p, from: from, to: to, into: $0) }
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
        guard case .frame(let p) = a.run.next(now: clock()) else {
            animation = nil
            return false
        }
        do {
            try output.present { TransitionBlend.draw(a.run.transition, progress: p, from: a.from, to: a.to, into: $0) }
        } catch {
            animation = nil
            return false
        }
        animation = a.run.finished ? nil : a
        return !a.run.finished
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
