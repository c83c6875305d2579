import Foundation
import LecternModel
import LecternSystem
import LecternRender
import Synchronization

/// The wall's ink: what to draw over each page (the room's strokes, `InkLayer`) and where
/// each pointer is, kept for the stage's display loop. A compositing step of its own, after
/// the page frame: it draws into the frame being presented (never into the cached page
/// frame) and never asks for the page to be rendered again.
///
/// Pointer positions never queue up: `point` overwrites the pointer's newest position and
/// wakes the display loop, which draws whatever is newest at its next refresh.
///
/// Its state is behind `state` (a `Mutex`); `bell` rings after each change (`wait(after:)`
/// waits on it). A kept composed frame's pixels are drawn into outside the lock only by
/// `compose`, which only the display loop calls (one thread), as every frame's pixels
/// have one writer (`Frame`).
public final class InkOverlay: Sendable {
    public struct Key: Hashable, Sendable {
        public var content: String
        public var page: Int
        public init(content: String, page: Int) { self.content = content; self.page = page }
        /// A live share's ink and pointers (docs/protocol.md §29.8): kept as a page's, under
        /// `ShareInk.content` (never a content id) and the share's source serial.
        public static func share(serial: Int) -> Key { Key(content: ShareInk.content, page: serial) }
        public init?(_ scene: Scene) {
            switch scene {
            case .page(let c, let p), .pagePart(let c, let p, _): content = c; page = p
            default: return nil
            }
        }
    }

    private struct State {
        var layers: [Key: InkLayer] = [:]
        /// Bumped when a page's finished strokes change other than by new ones at the end (an
        /// undo, an erase, a clear): its composed frame is then stale. New strokes at the end
        /// are drawn onto the composed frame, not the whole page again.
        var finishedVersions: [Key: Int] = [:]
        /// Page frames with their finished strokes drawn, newest last: a page turn to one of
        /// them, and every refresh while a stroke grows or a pointer moves, copies it instead of
        /// drawing every stroke again.
        var composed: [Composed] = []
        var pointers: [UInt8: (page: Key, trace: InkPointerTrace)] = [:]
        /// Who hears of every change (the display loop's mailbox); set once, before changes.
        var observer: (@Sendable () -> Void)?
        /// Bumped by every change; the display loop draws when it differs from what it drew.
        var version = 0
    }
    private let state = Mutex(State())
    private let bell = ChangeBell()
    private static let composedKept = 3
    private struct Composed {
        let key: Key
        let epoch: Int
        weak var base: Frame?
        let rect: PixelRect
        let frame: Frame
        /// How many of the page's finished strokes are drawn in `frame`, and the last one's id.
        var count: Int
        var lastID: UInt32?
        init(key: Key, epoch: Int, base: Frame, rect: PixelRect, frame: Frame, strokes: [InkStroke]) {
            self.key = key; self.epoch = epoch; self.base = base; self.rect = rect; self.frame = frame
            count = strokes.count; lastID = strokes.last?.id
        }
        /// Whether `strokes` are those drawn, maybe with more after them.
        func isPrefix(of strokes: [InkStroke]) -> Bool {
            strokes.count >= count && (count == 0 || strokes[count - 1].id == lastID)
        }
    }

    /// Calls `change` after every change of the overlay (on the changer's thread; it must not wait).
    public func onChange(_ change: @escaping @Sendable () -> Void) {
        state.withLock { $0.observer = change }
    }
    private let clock: @Sendable () -> Double

    public init(clock: @escaping @Sendable () -> Double = { MonotonicClock.now() }) { self.clock = clock }

    /// What to draw over `page` from now on (an empty layer: nothing).
    public func setLayer(_ layer: InkLayer, for page: Key) {
        let tell = state.withLock { s in
            let old = s.layers[page]?.strokes ?? []
            let appended = layer.strokes.count >= old.count && (old.isEmpty || layer.strokes[old.count - 1].id == old.last?.id)
            if !appended {
                s.finishedVersions[page, default: 0] += 1
                s.composed.removeAll { $0.key == page }
            }
            s.layers[page] = layer.isEmpty ? nil : layer
            s.version += 1
            return s.observer
        }
        bell.ring()
        tell?()
    }

    /// Pointer `device` is at `point` of `page` now (or lifted there).
    public func point(_ device: UInt8, page: Key, _ point: InkPoint, lifted: Bool) {
        let now = clock()
        let tell = state.withLock { s in
            var entry: (page: Key, trace: InkPointerTrace) = (page, InkPointerTrace())
            if let old = s.pointers[device], old.page == page { entry = old }
            if lifted {
                if entry.trace.samples.isEmpty { entry.trace.move(to: point, at: now) }
                entry.trace.lift(at: now)
            } else {
                entry.trace.move(to: point, at: now)
            }
            s.pointers[device] = entry
            s.version += 1
            return s.observer
        }
        bell.ring()
        tell?()
    }

    /// A number that changes whenever the overlay does.
    public var currentVersion: Int { state.withLock { $0.version } }

    /// Whether the picture over `scene` changes by itself (a pointer's trail or fade).
    public func animating(_ scene: Scene) -> Bool {
        guard let key = Key(scene) else { return false }
        let now = clock()
        return state.withLock { s in s.pointers.values.contains { $0.page == key && $0.trace.animating(now: now) } }
    }

    /// Whether anything is to be drawn over `scene` now.
    public func hasInk(_ scene: Scene) -> Bool {
        guard let key = Key(scene) else { return false }
        return hasInk(key)
    }

    /// Whether anything is to be drawn over the page (or live share) `key` now.
    public func hasInk(_ key: Key) -> Bool {
        let now = clock()
        return state.withLock { s in
            s.layers[key] != nil || s.pointers.values.contains { $0.page == key && $0.trace.visible(now: now) }
        }
    }

    /// Draws every stroke and pointer of `key` (a live share's, whose picture changes at each
    /// refresh: nothing is kept) into `frame` over `rect`.
    public func paint(_ key: Key, into frame: Frame, rect: PixelRect) {
        let now = clock()
        let (layer, trails) = state.withLock { s in
            let trails = s.pointers.sorted { $0.key < $1.key }.filter { $0.value.page == key && $0.value.trace.visible(now: now) }.map {
                $0.value.trace.trail(now: now)
            }
            return (s.layers[key], trails)
        }
        InkPainter.paint(strokes: (layer?.strokes ?? []) + (layer?.live ?? []), pointers: trails, into: frame, rect: rect)
    }

    /// Waits until the overlay changed since `version` or `timeout` seconds passed.
    public func wait(after version: Int, timeout: Double) {
        let deadline = DispatchTime.now() + max(0, timeout)
        while true {
            let seen = bell.generation
            if state.withLock({ $0.version }) != version { return }
            if !bell.wait(after: seen, until: deadline) { return }
        }
    }

    /// Fills `frame` with `base` (the page frame of `scene`, its page at `rect`) and the ink
    /// over it; returns the overlay version drawn. The finished strokes come from a kept
    /// composed frame when there is one; strokes in progress and pointers are drawn fresh.
    @discardableResult
    public func compose(_ scene: Scene, base: Frame, into frame: Frame, rect: PixelRect) -> Int {
        guard let key = Key(scene) else {
            frame.copy(from: base)
            return currentVersion
        }
        let now = clock()
        let (layer, finished, trails, kept, v) = state.withLock { s in
            let layer = s.layers[key]
            let finished = s.finishedVersions[key, default: 0]
            for (d, p) in s.pointers where !p.trace.visible(now: now) { s.pointers[d] = nil }
            let trails = s.pointers.sorted { $0.key < $1.key }.filter { $0.value.page == key }.map { $0.value.trace.trail(now: now) }
            let strokes = layer?.strokes ?? []
            let kept = s.composed.last { $0.key == key && $0.epoch == finished && $0.base === base && $0.rect == rect && $0.isPrefix(of: strokes) }
            return (layer, finished, trails, kept, s.version)
        }
        let strokes = layer?.strokes ?? []
        // Only the stage's display loop composes (one at a time): a kept frame is drawn here alone.
        if let kept {
            if kept.count < strokes.count {
                InkPainter.paint(strokes: Array(strokes[kept.count...]), pointers: [], into: kept.frame, rect: rect)
                state.withLock { s in
                    guard let i = s.composed.firstIndex(where: { $0.frame === kept.frame }) else { return }
                    s.composed[i].count = strokes.count
                    s.composed[i].lastID = strokes.last?.id
                }
            }
            frame.copy(from: kept.frame)
        } else if !strokes.isEmpty {
            let c = base.clone()
            InkPainter.paint(strokes: strokes, pointers: [], into: c, rect: rect)
            frame.copy(from: c)
            state.withLock { s in
                s.composed.removeAll { $0.key == key || $0.base == nil }
                s.composed.append(Composed(key: key, epoch: finished, base: base, rect: rect, frame: c, strokes: strokes))
                if s.composed.count > Self.composedKept { s.composed.removeFirst(s.composed.count - Self.composedKept) }
            }
        } else {
            frame.copy(from: base)
        }
        InkPainter.paint(strokes: layer?.live ?? [], pointers: trails, into: frame, rect: rect)
        return v
    }
}
