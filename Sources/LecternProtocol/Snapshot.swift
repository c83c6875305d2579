import Foundation
import LecternModel

/// The state every device sees: sent as JSON in the body of `state` (0x15) right after
/// register, in reply to state-request, and pushed to every device on every change
/// (docs/protocol.md, "State"). The floor and device parts come from `Floor`; the
/// screen part is owned and filled in by the service.
///
/// Optional fields are always present in the JSON, as `null` when empty.
public struct Snapshot: Codable, Equatable, Sendable {
    /// Increases with every change of the state, within one `epoch` (§14.1).
    public var revision: UInt64
    /// The service run the state comes from: 16 lower-case hex digits, new each time the
    /// service starts (§14.1). A client that sees another epoch takes the state whatever its
    /// revision. Optional only so that a state without it (an older server) still parses.
    public var epoch: String?
    public var room: String
    public var floorMode: FloorMode
    public var floor: FloorSnapshot
    /// Every device in the room, by ascending id (including a holder in its grace period).
    public var devices: [DeviceSnapshot]
    public var screen: ScreenSnapshot
    /// The room's volume and mute, and the sound device (§23).
    public var sound: SoundSnapshot
    /// The pointer and ink (§22): filled in by the room, always present in its states.
    public var ink: InkSnapshot?
    /// The presenter console: slide label and step, the talk timer (§20). Never notes.
    public var console: ConsoleSnapshot?
    /// The output and whether a display is on it (docs/protocol.md §21).
    public var output = OutputSnapshot()
    /// The room's page-transition choice (§21).
    public var transitions = TransitionsSnapshot()
    /// The audience: viewers, the lock, polls and questions (§24). A viewer's is filtered.
    public var audience: AudienceSnapshot?
    /// The meeting record (§26): on or off, its pages now, whether presenters may download it.
    public var record: RecordSnapshot?
    /// The wall's layout and its panes (§9.7, protocol 1.1): filled in by the room.
    public var layout: LayoutSnapshot?
    /// The protocol's minor version (§5): 1 from the build that added `layout`; absent: 0.
    public var protocolMinor: UInt16?
    /// The meeting's opaque id (§27): new for each meeting, the same across restarts.
    public var meeting: String?
    /// Live shares (§29.5): waiting for the moderator, live, paused or away; oldest first.
    public var shares: [ShareSnapshot]?
    /// The upload limit a client checks before it reads a file (§30.10).
    public var uploads: UploadsSnapshot?
    /// Uploads being converted to PDF, running first, then waiting (§30.4); null for viewers
    /// (and from a server without conversions).
    public var conversions: [ConversionSnapshot]?

    public init(
        revision: UInt64, room: String, floorMode: FloorMode, floor: FloorSnapshot, devices: [DeviceSnapshot], screen: ScreenSnapshot,
        console: ConsoleSnapshot? = nil, ink: InkSnapshot? = nil, sound: SoundSnapshot = SoundSnapshot()
    ) {
        self.sound = sound
        self.ink = ink
        self.revision = revision
        self.room = room
        self.floorMode = floorMode
        self.floor = floor
        self.devices = devices
        self.screen = screen
        self.console = console
    }

    enum CodingKeys: String, CodingKey {
        case revision, epoch, room, floorMode, floor, devices, screen, console, ink, output, transitions, sound, audience, record, meeting, layout, protocolMinor, shares
        case conversions, uploads
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(revision, forKey: .revision)
        try c.encode(epoch, forKey: .epoch)
        try c.encode(room, forKey: .room)
        try c.encode(floorMode, forKey: .floorMode)
        try c.encode(floor, forKey: .floor)
        try c.encode(devices, forKey: .devices)
        try c.encode(screen, forKey: .screen)
        try c.encode(console, forKey: .console)
        try c.encode(sound, forKey: .sound)
        try c.encode(audience, forKey: .audience)
        try c.encode(record, forKey: .record)
        try c.encode(meeting, forKey: .meeting)
        try c.encode(ink, forKey: .ink)
        try c.encode(output, forKey: .output)
        try c.encode(transitions, forKey: .transitions)
        try c.encode(layout, forKey: .layout)
        try c.encode(protocolMinor, forKey: .protocolMinor)
        try c.encode(shares, forKey: .shares)
        try c.encode(uploads, forKey: .uploads)
        try c.encode(conversions, forKey: .conversions)
    }

    /// Compact JSON with sorted keys (the wire form).
    public func jsonBytes() -> [UInt8] {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain value types cannot fail.
        return (try? Array(e.encode(self))) ?? Array("{}".utf8)
    }

    public static func fromJSON<C: Collection>(_ bytes: C) throws -> Snapshot where C.Element == UInt8 {
        try JSONDecoder().decode(Snapshot.self, from: Data(bytes))
    }
}

public struct FloorSnapshot: Codable, Equatable, Sendable {
    /// Who has the floor (the owner), or null.
    public var holder: DeviceID?
    /// Who holds it on loan after a hand-over, or null.
    public var delegate: DeviceID?
    /// Who drives the screen now: `delegate ?? holder`.
    public var driver: DeviceID?
    /// Devices waiting for the floor, first in line first (moderated mode).
    public var queue: [DeviceID]
    public var doNotDisturb: Bool
    /// When the holder's connection dropped: milliseconds left in the grace period; else null.
    public var graceRemainingMs: UInt64?

    public init(holder: DeviceID? = nil, delegate: DeviceID? = nil, queue: [DeviceID] = [], doNotDisturb: Bool = false, graceRemainingMs: UInt64? = nil) {
        self.holder = holder
        self.delegate = delegate
        self.driver = delegate ?? holder
        self.queue = queue
        self.doNotDisturb = doNotDisturb
        self.graceRemainingMs = graceRemainingMs
    }

    enum CodingKeys: String, CodingKey { case holder, delegate, driver, queue, doNotDisturb, graceRemainingMs }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(holder, forKey: .holder)
        try c.encode(delegate, forKey: .delegate)
        try c.encode(driver, forKey: .driver)
        try c.encode(queue, forKey: .queue)
        try c.encode(doNotDisturb, forKey: .doNotDisturb)
        try c.encode(graceRemainingMs, forKey: .graceRemainingMs)
    }
}

public struct DeviceSnapshot: Codable, Equatable, Sendable {
    public var id: DeviceID
    public var name: String
    public var role: Role
    /// False while the device is in its grace period after its connection dropped.
    public var connected: Bool

    public init(id: DeviceID, name: String, role: Role, connected: Bool) {
        self.id = id
        self.name = name
        self.role = role
        self.connected = connected
    }
}

/// What is on the output. Filled in by the service.
public struct ScreenSnapshot: Codable, Equatable, Sendable {
    public enum Blank: String, Codable, Sendable { case none, black, white }

    /// What is shown, or null for the idle screen (room name and how to join).
    public var content: ContentSnapshot?
    /// 1-based page of a PDF; 0 when no PDF is shown.
    public var page: UInt32
    /// Pages of the PDF shown; 0 when no PDF is shown.
    public var pageCount: UInt32
    public var blank: Blank
    /// State of the clip shown, or null when no clip is shown.
    public var clip: ClipSnapshot?

    public init(content: ContentSnapshot? = nil, page: UInt32 = 0, pageCount: UInt32 = 0, blank: Blank = .none, clip: ClipSnapshot? = nil) {
        self.content = content
        self.page = page
        self.pageCount = pageCount
        self.blank = blank
        self.clip = clip
    }

    public static let idle = ScreenSnapshot()

    enum CodingKeys: String, CodingKey { case content, page, pageCount, blank, clip }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(content, forKey: .content)
        try c.encode(page, forKey: .page)
        try c.encode(pageCount, forKey: .pageCount)
        try c.encode(blank, forKey: .blank)
        try c.encode(clip, forKey: .clip)
    }
}

public struct ContentSnapshot: Codable, Equatable, Sendable {
    public var id: ContentID
    /// The file name given at upload.
    public var name: String
    public var kind: ContentKind
    /// What a converted deck was converted from ("pptx", §30): its kind is "pdf" (so any
    /// client presents it); null for a file uploaded as a PDF or a clip.
    public var convertedFrom: String?

    public init(id: ContentID, name: String, kind: ContentKind, convertedFrom: String? = nil) {
        self.id = id
        self.name = name
        self.kind = kind
        self.convertedFrom = convertedFrom
    }

    enum CodingKeys: String, CodingKey { case id, name, kind, convertedFrom }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(kind, forKey: .kind)
        try c.encode(convertedFrom, forKey: .convertedFrom)
    }
}

public struct ClipSnapshot: Codable, Equatable, Sendable {
    public enum Playback: String, Codable, Sendable { case playing, paused, stopped }
    public var state: Playback
    public var positionMs: UInt32
    public var durationMs: UInt32
    public var loop: Bool
    /// Frames shown so far in this play, and frames dropped because they would have come late.
    public var presentedFrames: UInt32
    public var droppedFrames: UInt32

    public init(
        state: Playback, positionMs: UInt32, durationMs: UInt32, loop: Bool,
        presentedFrames: UInt32 = 0, droppedFrames: UInt32 = 0
    ) {
        self.state = state
        self.positionMs = positionMs
        self.durationMs = durationMs
        self.loop = loop
        self.presentedFrames = presentedFrames
        self.droppedFrames = droppedFrames
    }

    enum CodingKeys: String, CodingKey { case state, positionMs, durationMs, loop, presentedFrames, droppedFrames }
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        state = try c.decode(Playback.self, forKey: .state)
        positionMs = try c.decode(UInt32.self, forKey: .positionMs)
        durationMs = try c.decode(UInt32.self, forKey: .durationMs)
        loop = try c.decode(Bool.self, forKey: .loop)
        presentedFrames = try c.decodeIfPresent(UInt32.self, forKey: .presentedFrames) ?? 0
        droppedFrames = try c.decodeIfPresent(UInt32.self, forKey: .droppedFrames) ?? 0
    }
}
