import LecternModel
import LecternProtocol

/// What must survive a power cut or a `kill -9`: what is on screen (content, page, blank),
/// the clip playing over it (where it was, playing or paused) and who holds the floor (so
/// they can resume it). The shell keeps it in `<data_dir>/state.json` (`StateWriter`),
/// written after every change; a playing clip's position at most twice a second
/// (`ClipSaveThrottle`), not at every frame.
public struct SavedState: Codable, Equatable, Sendable {
    public struct Holder: Codable, Equatable, Sendable {
        public var id: UInt8
        public var name: String
        public var role: String
        public var resumeToken: String
        public init(id: UInt8, name: String, role: String, resumeToken: String) {
            self.id = id
            self.name = name
            self.role = role
            self.resumeToken = resumeToken
        }
    }

    public var content: String?
    public var page: Int
    public var blank: String
    public var holder: Holder?
    /// The clip over the slide; absent in files written before clips were saved.
    public var clip: SavedClip?
    /// The room's volume and mute; absent in older files (full volume, sound on).
    public var sound: SavedSound?

    /// The talk timer (absent in states saved before it existed).
    public var timer: TalkTimer?
    /// The audience's polls, questions and settings (absent before §24; nil once the meeting ended).
    public var audience: AudienceSaved?
    /// Every page's finished strokes and who may draw (absent in files of older versions).
    public var ink: InkBoard.Saved?
    /// Whiteboards of the meeting: white ones, black ones (absent: none).
    public var whiteboards: [Int]?
    /// The meeting record (§26; absent: none, or cleared when the meeting ended).
    public var record: MeetingRecord?
    /// The meeting's id and start (§27; absent in older files: a new meeting).
    public var meeting: Meeting?
    /// The wall's layout and its panes besides the main one (§9.7; absent: one full pane,
    /// as in files of older versions).
    public var wall: SavedWall?

    public init(
        screen: CommittedScreen, floor: Floor, timer: TalkTimer? = nil, ink: InkBoard.Saved? = nil, whiteboards: [Int]? = nil, clip: SavedClip? = nil
    ) {
        self.timer = timer
        self.clip = clip
        self.ink = ink
        self.whiteboards = whiteboards
        content = screen.content?.id.hex
        page = screen.page
        blank = screen.blank.rawValue
        holder = floor.holder.flatMap { Holder(floor.devices[$0]) }
    }

    /// Nothing saved yet: the idle screen, no holder (filled part by part by `SavedStateFile`).
    init() {
        page = 0
        blank = ScreenSnapshot.Blank.none.rawValue
    }

    /// The screen model this state describes, if its content is still in the store.
    public func screen(in catalog: ContentCatalog) -> CommittedScreen? {
        Self.screen(content: content, page: page, blank: blank, whiteboards: whiteboards, in: catalog)
    }

    /// A saved screen (the main one, or a pane's) as a model, if its content is still in the store.
    static func screen(content: String?, page: Int, blank: String, whiteboards: [Int]?, in catalog: ContentCatalog) -> CommittedScreen? {
        let blankValue = ScreenSnapshot.Blank(rawValue: blank) ?? .none
        guard let hex = content else { return blankValue == .none ? nil : CommittedScreen(blank: blankValue) }
        if Whiteboard.background(hex) != nil, let id = ContentID(hex: hex), let counts = whiteboards, counts.count == 2 {
            let black = hex == Whiteboard.blackHex
            let n = min(counts[black ? 1 : 0], Whiteboard.maxBoards)
            guard page >= 1, page <= n else { return nil }
            return CommittedScreen(
                content: ContentSnapshot(id: id, name: Whiteboard.name(black: black), kind: .pdf), page: page, pageCount: n, blank: blankValue)
        }
        guard let id = ContentID(hex: hex), let item = catalog[id], item.kind == .pdf,
            page >= 1, page <= item.pages
        else { return nil }
        return CommittedScreen(content: item.snapshot, page: page, pageCount: item.pages, blank: blankValue, part: item.deck.layout.slidePart)
    }

    public var holderToken: ResumeToken? { holder?.token }
}

extension SavedState.Holder {
    /// A device as the saved state keeps it (the floor's holder, a pane's driver).
    init?(_ device: Floor.Device?) {
        guard let d = device else { return nil }
        self.init(id: d.id, name: d.name, role: d.role == .moderator ? "moderator" : "presenter", resumeToken: d.resumeToken.description)
    }

    /// Its resume token, if the file holds a well-formed one.
    public var token: ResumeToken? {
        guard resumeToken.count == 32 else { return nil }
        var bytes: [UInt8] = []
        var i = resumeToken.startIndex
        while i < resumeToken.endIndex {
            let j = resumeToken.index(i, offsetBy: 2)
            guard let b = UInt8(resumeToken[i..<j], radix: 16) else { return nil }
            bytes.append(b); i = j
        }
        return ResumeToken(bytes: bytes)
    }

    var floorRole: Role { role == "moderator" ? .moderator : .presenter }
}
