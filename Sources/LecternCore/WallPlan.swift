/// What the whole wall should show: a layout and what is in each of its panes (issue 26).
///
/// The room decides it (`RoomEffect.showWall`); the stage shows it. A one-pane `full`
/// plan of a scene is today's wall: `WallPlan(scene)`.
public struct WallPlan: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var layout: WallLayout
    /// One entry per pane, in the layout's pane order (`layout.paneCount` entries).
    public var panes: [PaneContent]

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
    /// The moving picture of the clip opened for play `serial` (`RoomEffect.openClip`);
    /// later a live share is another case here.
    case clip(serial: Int)

    public var description: String {
        switch self {
        case .scene(let s): return s.description
        case .clip(let serial): return "clip #\(serial)"
        }
    }
}
