import LecternModel

/// The wall's layout on the wire (docs/protocol.md §9.7, §14.2 `layout`; protocol 1.1):
/// layout-set (0x90), pane-set (0x91), wall-add (0x92), pane-play (0x93), and the state's
/// `layout` object.

extension WallLayout {
    /// The byte layout-set carries: 0 full, 1 split, 2 stack, 3 quad, 4 pip.
    public var wireValue: UInt8 {
        switch self {
        case .full: 0
        case .split: 1
        case .stack: 2
        case .quad: 3
        case .pip: 4
        }
    }

    public init?(wireValue: UInt8) {
        guard let l = WallLayout.allCases.first(where: { $0.wireValue == wireValue }) else { return nil }
        self = l
    }
}

/// What pane-set (0x91) does to one pane.
public enum PaneAction: Equatable, Sendable {
    /// 1: show this page of a deck in the pane (the pane's driver, if any, keeps driving it).
    case present(content: ContentID, page: UInt32)
    /// 2: the pane goes idle.
    case clear
    /// 3: the pane goes idle and is driven by this device from now on (0: by nobody).
    case assign(DeviceID)
    /// 4: the pane becomes the whole wall (layout full).
    case full
    /// 5: the pane and pane `with` change places, each with its content and driver.
    case swap(with: UInt8)

    public var wireValue: UInt8 {
        switch self {
        case .present: 1
        case .clear: 2
        case .assign: 3
        case .full: 4
        case .swap: 5
        }
    }
}

/// pane-set (0x91): u8 pane index, u8 action, then the action's fields.
public struct PaneRequest: Equatable, Sendable {
    public var pane: UInt8
    public var action: PaneAction
    public init(pane: UInt8, _ action: PaneAction) {
        self.pane = pane
        self.action = action
    }
}

/// The most panes a layout has (quad): a pane index at or above it is malformed.
public let maxWallPanes = WallLayout.allCases.map(\.paneCount).max() ?? 4

extension Body {
    // layout-set (0x90): u8 layout
    static func layoutSet(_ r: inout ByteReader) throws -> Message {
        let b = try r.u8()
        guard let l = WallLayout(wireValue: b) else { throw WireError.invalid("layout \(b) is not 0–4") }
        return .layoutSet(l)
    }

    // pane-set (0x91): u8 pane, u8 action, then: present: 32-byte content, u32 page ·
    // assign: u8 device · swap: u8 other pane · clear, full: nothing
    static func paneSet(_ p: PaneRequest, _ w: inout ByteWriter) {
        w.u8(p.pane)
        w.u8(p.action.wireValue)
        switch p.action {
        case .present(let c, let page): w.bytes(c.bytes); w.u32(page)
        case .assign(let d): w.u8(d)
        case .swap(let other): w.u8(other)
        case .clear, .full: break
        }
    }

    static func paneSet(_ r: inout ByteReader) throws -> Message {
        let pane = try r.u8()
        guard Int(pane) < maxWallPanes else { throw WireError.invalid("pane \(pane) is not 0–\(maxWallPanes - 1)") }
        let action: PaneAction
        switch try r.u8() {
        case 1:
            let c = try contentID(&r)
            action = .present(content: c, page: try r.u32())
        case 2: action = .clear
        case 3: action = .assign(try r.u8())
        case 4: action = .full
        case 5:
            let other = try r.u8()
            guard Int(other) < maxWallPanes else { throw WireError.invalid("pane \(other) is not 0–\(maxWallPanes - 1)") }
            action = .swap(with: other)
        case let a: throw WireError.invalid("pane action \(a) is not 1–5")
        }
        return .paneSet(PaneRequest(pane: pane, action))
    }

    // wall-add (0x92): 32-byte content, u32 page (as present)
    static func wallAdd(_ r: inout ByteReader) throws -> Message {
        let c = try contentID(&r)
        return .wallAdd(content: c, page: try r.u32())
    }

    // pane-play (0x93): u8 pane, 32-byte content, u8 loop (0 or 1)
    static func panePlay(_ pane: UInt8, _ c: ContentID, _ loop: Bool, _ w: inout ByteWriter) {
        w.u8(pane); w.bytes(c.bytes); w.u8(loop ? 1 : 0)
    }

    static func panePlay(_ r: inout ByteReader) throws -> Message {
        let pane = try r.u8()
        guard Int(pane) < maxWallPanes else { throw WireError.invalid("pane \(pane) is not 0–\(maxWallPanes - 1)") }
        let c = try contentID(&r)
        return .panePlay(pane: pane, content: c, loop: try flag(&r, "pane-play's loop"))
    }
}

/// The state's `layout` object (§14.2): the wall's layout and every pane.
public struct LayoutSnapshot: Codable, Equatable, Sendable {
    public var kind: WallLayout
    public var panes: [PaneSnapshot]
    /// The pane whose clip has the wall's one sound output (§23.1); null: no clip plays.
    public var soundPane: Int?
    public init(kind: WallLayout, panes: [PaneSnapshot], soundPane: Int? = nil) {
        self.kind = kind
        self.panes = panes
        self.soundPane = soundPane
    }

    enum CodingKeys: String, CodingKey { case kind, panes, soundPane }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(panes, forKey: .panes)
        try c.encode(soundPane, forKey: .soundPane)   // null when no clip plays
    }

    /// The wall as it was before layouts: one full pane showing `screen`, driven by the floor.
    public static func full(_ screen: ScreenSnapshot, driver: DeviceID?) -> LayoutSnapshot {
        LayoutSnapshot(kind: .full, panes: [PaneSnapshot(index: 0, rect: PaneSnapshot.Rect(x: 0, y: 0, width: 1, height: 1), driver: driver, main: true, screen: screen)])
    }
}

/// One pane of the wall in the state.
public struct PaneSnapshot: Codable, Equatable, Sendable {
    /// Where the pane sits, as shares (0–1) of the output's width and height, before overscan.
    public struct Rect: Codable, Equatable, Sendable {
        public var x: Double, y: Double, width: Double, height: Double
        public init(x: Double, y: Double, width: Double, height: Double) { self.x = x; self.y = y; self.width = width; self.height = height }
    }
    public var index: Int
    public var rect: Rect
    /// Who drives the pane (its controls act here); null: nobody. The main pane's driver is
    /// the floor's driver.
    public var driver: DeviceID?
    /// The room's main pane: the floor's (§9.7).
    public var main: Bool
    /// What the pane shows, in the form of the state's `screen` object.
    public var screen: ScreenSnapshot
    /// While the pane's driver is away (its connection dropped, §9.6): the milliseconds left
    /// of its grace period; null while it is connected, or nobody drives the pane. The
    /// main pane's is the floor's (`floor.graceRemainingMs`).
    public var graceRemainingMs: UInt64?
    /// The image address of the page the pane shows, for viewers (§24.8, as
    /// `audience.pageImage` for the main pane); null when the pane shows no page viewers
    /// may fetch (blank, a clip, idle).
    public var pageImage: String?
    /// The device whose live share the pane shows over its screen (§29), or null.
    public var share: DeviceID?

    public init(
        index: Int, rect: Rect, driver: DeviceID?, main: Bool, screen: ScreenSnapshot, graceRemainingMs: UInt64? = nil, pageImage: String? = nil,
        share: DeviceID? = nil
    ) {
        self.share = share
        self.index = index
        self.rect = rect
        self.driver = driver
        self.main = main
        self.screen = screen
        self.graceRemainingMs = graceRemainingMs
        self.pageImage = pageImage
    }

    enum CodingKeys: String, CodingKey { case index, rect, driver, main, screen, graceRemainingMs, pageImage, share }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(rect, forKey: .rect)
        try c.encode(driver, forKey: .driver)   // null when nobody drives it
        try c.encode(main, forKey: .main)
        try c.encode(screen, forKey: .screen)
        try c.encode(graceRemainingMs, forKey: .graceRemainingMs)   // null: not away
        try c.encode(pageImage, forKey: .pageImage)   // null: no image to fetch
        try c.encode(share, forKey: .share)   // null when no share shows there
    }
}

// MARK: errors (0x0Fxx)

extension LecternError {
    /// A pane index the wall's layout doesn't have; detail = how many panes it has.
    public static func noSuchPane(_ pane: Int, paneCount: Int) -> LecternError {
        LecternError(
            .noSuchPane, detail: UInt64(paneCount),
            message: "The wall has no pane \(pane) — its layout has \(paneCount) pane\(paneCount == 1 ? "" : "s") (0–\(paneCount - 1)).")
    }
    public static let wallFull = LecternError(standard: .wallFull)
    public static let wallModerated = LecternError(standard: .wallModerated)
    public static let paneCannotPlay = LecternError(standard: .paneCannotPlay)
}
