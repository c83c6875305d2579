/// What the whole wall should show: a layout and what is in each of its panes (issue 26).
///
/// The room decides it (`RoomEffect.showWall`); the stage shows it. A one-pane `full`
/// plan of a scene is today's wall: `WallPlan(scene)`.
public struct WallPlan: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var layout: WallLayout
    /// One entry per pane, in the layout's pane order (`layout.paneCount` entries).
    public var panes: [PaneContent]
    /// A card (a poll's chart, §24) over a pane showing a moving source, by pane index: a card
    /// is an overlay, it doesn't end a live share (a card over a page is its scene's, `.card`).
    public var cards: [Int: WallCard] = [:]

    public init(layout: WallLayout, panes: [PaneContent]) {
        precondition(panes.count == layout.paneCount, "a \(layout) plan has \(layout.paneCount) panes, not \(panes.count)")
        self.layout = layout
        self.panes = panes
    }

    /// The whole wall showing one scene (today's wall).
    public init(_ scene: Scene) { self.init(layout: .full, panes: [.scene(scene)]) }

    public var description: String {
        layout == .full ? panes[0].description : "\(layout): " + panes.map(\.description).joined(separator: " | ")
    }
}

/// What one pane shows.
public enum PaneContent: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// A page (or its part), blank, the idle card, a card over a scene: anything still.
    case scene(Scene)
    /// The moving picture of the clip opened for play `serial` (`RoomEffect.openClip`).
    case clip(serial: Int)
    /// The live share whose source is `serial` (docs/protocol.md §29): its newest picture;
    /// `paused`: its last picture held, marked paused.
    case share(serial: Int, paused: Bool)

    /// The moving source the pane shows (a clip's or a share's), if any.
    public var sourceSerial: Int? {
        switch self {
        case .scene: return nil
        case .clip(let s), .share(let s, _): return s
        }
    }

    public var description: String {
        switch self {
        case .scene(let s): return s.description
        case .clip(let serial): return "clip #\(serial)"
        case .share(let serial, let paused): return "share #\(serial)\(paused ? " (paused)" : "")"
        }
    }
}
