import LecternModel

/// What the display loop last drew into each of the output's back buffers, pane by pane, so
/// a present redraws only the panes whose picture changed since that buffer was last drawn:
/// a clip's new frame in one pane of a split leaves the other pane's pixels alone, whichever
/// buffer comes back. Only for panes that don't overlap and need no background under them
/// (`Composition.panesCoverTheOutput`); anything else is drawn whole, as is a buffer not seen
/// before. The buffers named here are held (an identity is never reused while it is
/// remembered); the still frames only weakly (a page the cache let go is not kept alive
/// here, and a stamp whose frame is gone matches nothing).
struct BufferContents {
    /// What a pane showed when drawn.
    enum Stamp: Equatable {
        /// Take `take` of moving source `serial`, with the pause sign over it or not.
        case video(serial: Int, take: Int, paused: Bool)
        /// A still frame without ink.
        case still(ObjectIdentifier)
        /// Anything else (ink, a transition step, the background): always drawn again.
        case other
    }

    private struct Held {
        let buffer: Frame
        var rects: [PixelRect]
        var stamps: [Stamp]
        var corner: String?
        /// The still frame of each pane that shows one, weakly.
        var stills: [WeakFrame]
    }

    struct WeakFrame {
        weak var frame: Frame?
    }

    /// One record a buffer; an output has two or three.
    private var held: [Held] = []
    static let buffers = 4

    /// For each pane of `c` (described by `stamps`): whether it must be drawn into `buffer`.
    /// `corner`: where the corner code goes (the panes under it are drawn, the code over them).
    func panesToDraw(into buffer: Frame, _ c: Composition, stamps: [Stamp], corner: PixelRect?) -> [Bool] {
        let all = Array(repeating: true, count: c.panes.count)
        guard c.panesCoverTheOutput, let h = held.first(where: { $0.buffer === buffer }), h.rects == c.panes.map(\.rect), h.corner == c.cornerCode
        else { return all }
        return c.panes.indices.map { i in
            if stamps[i] == .other || stamps[i] != h.stamps[i] { return true }
            if case .still(let id) = stamps[i], h.stills[i].frame.map(ObjectIdentifier.init) != id { return true }
            if let corner, Self.overlap(corner, c.panes[i].rect) { return true }
            return false
        }
    }

    /// What pane `i` of `c` showed when `buffer` was last drawn (nil: not known, or the
    /// panes were elsewhere then).
    func previous(in buffer: Frame, pane i: Int, _ c: Composition) -> Stamp? {
        guard c.panesCoverTheOutput, let h = held.first(where: { $0.buffer === buffer }), h.rects == c.panes.map(\.rect), i < h.stamps.count
        else { return nil }
        return h.stamps[i]
    }

    /// `c` was drawn into `buffer` (each pane now shows what `stamps` says; `stills`: each
    /// pane's still frame, or nil).
    mutating func drew(_ c: Composition, stamps: [Stamp], into buffer: Frame, stills: [Frame?]) {
        // Buffers of another size are an older mode's: forgotten.
        held.removeAll { $0.buffer === buffer || $0.buffer.width != buffer.width || $0.buffer.height != buffer.height }
        held.append(Held(buffer: buffer, rects: c.panes.map(\.rect), stamps: stamps, corner: c.cornerCode, stills: stills.map { WeakFrame(frame: $0) }))
        if held.count > Self.buffers { held.removeFirst() }
    }

    static func overlap(_ a: PixelRect, _ b: PixelRect) -> Bool {
        a.x < b.maxX && b.x < a.maxX && a.y < b.maxY && b.y < a.maxY
    }
}
