import LecternModel
import LecternProtocol

/// The wall's arrangement as `state.json` keeps it (docs/protocol.md §9.7, §14.4): the
/// layout and, per pane, what it shows and who drives it, so that after a restart the wall
/// comes back as it was and each pane's driver can resume it in its grace period. The
/// main pane's screen is the saved state's own (`content`, `page`, `blank`, `clip`); only
/// its place is kept here. Absent for a wall of one full pane.
public struct SavedWall: Codable, Equatable, Sendable {
    public struct Pane: Codable, Equatable, Sendable {
        /// The room's main pane (its screen is the saved state's own).
        public var main: Bool
        public var content: String?
        public var page: Int
        public var blank: String
        /// Who drives it (not for the main pane: the floor's driver does).
        public var driver: SavedState.Holder?
        /// A clip playing in it: which, where, paused or not (panes other than the main one).
        public var clip: SavedClip?

        public init(main: Bool, content: String? = nil, page: Int = 0, blank: String = ScreenSnapshot.Blank.none.rawValue, driver: SavedState.Holder? = nil, clip: SavedClip? = nil)
        {
            self.main = main
            self.content = content
            self.page = page
            self.blank = blank
            self.driver = driver
            self.clip = clip
        }
    }

    public var layout: WallLayout
    public var panes: [Pane]

    public init(layout: WallLayout, panes: [Pane]) {
        self.layout = layout
        self.panes = panes
    }

    /// The file's wall, if it is one the service could have written: as many panes as the
    /// layout has, exactly one main pane, each driver in at most one pane. Anything else
    /// (a hand-edited or damaged file) restores no layout: the main pane alone, as before.
    public var isWellFormed: Bool {
        guard layout != .full, panes.count == layout.paneCount, panes.filter(\.main).count == 1 else { return false }
        let drivers = panes.compactMap { $0.main ? nil : $0.driver?.id }
        return Set(drivers).count == drivers.count && !drivers.contains(0)
    }

    /// Pane `i`'s screen as a model, if what it showed is still in the store (nil: the
    /// idle pane). The main pane's is the caller's.
    public func screen(ofPane i: Int, whiteboards: [Int]?, in catalog: ContentCatalog) -> CommittedScreen? {
        let p = panes[i]
        return SavedState.screen(content: p.content, page: p.page, blank: p.blank, whiteboards: whiteboards, in: catalog)
    }

    /// The plan the stage shows at start, before the room runs: every pane as it was, the
    /// main one showing `main` (nil if the file's wall is not well formed).
    public func plan(main: Scene, whiteboards: [Int]?, in catalog: ContentCatalog) -> WallPlan? {
        guard isWellFormed else { return nil }
        let scenes: [PaneContent] = panes.indices.map { i in
            .scene(panes[i].main ? main : (screen(ofPane: i, whiteboards: whiteboards, in: catalog)?.scene ?? .idle))
        }
        return WallPlan(layout: layout, panes: scenes)
    }
}
