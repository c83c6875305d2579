import LecternModel
import LecternProtocol
import Logging

/// The meeting room as a state machine: every connection's protocol state, the floor
/// (`Floor`), the screen queue with the clip, the upload ledger and state pushes. Pure:
/// no I/O, no threads, no clock of its own. It takes `RoomEvent`s, each with the time, and
/// returns the `RoomEffect`s the shell (`Room`) carries out; slow work comes back as
/// events. Every decision of the room is made here. A value: a test may copy a room,
/// apply an event to the copy and compare (RoomValueTests); the shell owns one and
/// mutates it in place.
public struct RoomCore: Equatable, Sendable {
    /// The passcodes in force, as the server keeps them.
    public struct Keys: Equatable, Sendable {
        public typealias AudienceMode = LecternModel.AudienceMode
        public var presenter: PasscodeHash
        public var moderator: PasscodeHash?
        /// The audience passcode (§24.1), derived with the presenter's salt and rounds.
        public var audience: PasscodeHash?
        public var audienceMode: AudienceMode
        /// Which derivation made them (RoomCore+Keys.swift): newer keys have larger numbers.
        public var serial: UInt64 = 0
        public init(presenter: PasscodeHash, moderator: PasscodeHash?, audience: PasscodeHash? = nil, audienceMode: AudienceMode = .passcode) {
            self.presenter = presenter
            self.moderator = moderator
            self.audience = audience
            self.audienceMode = audienceMode
        }
    }

    public private(set) var config: Config
    var keys: Keys
    /// What hello names as the server ("lecternd 0.1.0").
    let serverName: String
    public internal(set) var floor: Floor
    var throttle = AuthThrottle()
    var removals: RemovalCooldown
    var peers: [ConnectionID: Peer] = [:]
    var catalog: ContentCatalog
    var ledger: UploadLedger
    var screen = ScreenQueue()
    /// The clips' serials, sound and saving (RoomClips.swift).
    var clips = RoomClips()
    /// The wall's panes besides the main one (RoomCore+Layout, §9.7).
    var wall = WallArrangement()
    /// Every page's strokes and who may draw (RoomCore+Ink).
    var ink = InkBoard()
    /// Where the main pane's page sits on the output (from the stage), for the state's `ink.box`.
    var pageBox: InkSnapshot.Box?
    /// Where every pane's page sits, in pane order: a pane driver's `ink.box` (§9.7).
    var paneBoxes: [InkSnapshot.Box?] = []
    /// This run of the service (§14.1): the revision starts again from 0 at every start, so
    /// the state carries the run it counts in, and clients compare that first.
    public let epoch: String
    /// The state pushes: revision, the encoded newest state, what is owed (StatePushes.swift).
    var pushes = StatePushes()
    /// Seconds between two state pushes to one client (§14.1, `StatePacer`); the core's
    /// table tests set 0 to see every push.
    public var statePushInterval: Double {
        get { pushes.interval }
        set { pushes.interval = newValue }
    }
    /// Pictures being made or waiting to be sent, room-wide (§13, RoomPictures.swift).
    var pictures = RoomPictures()
    var wakeAt: Double?
    var lastPartSweep = -Double.infinity
    var logLimiter = LogLimiter()
    /// Effects of the event being handled, in order.
    var out: [RoomEffect] = []
    var now: Double = 0
    /// The room's volume and mute (§23), and the device the shell plays clips' sound on.
    public internal(set) var sound = SoundSnapshot()
    /// The wall clock (seconds since 1970) of the event being handled, given with it: the
    /// talk timer's and the record's time. `wallOffset`: how far it was ahead of `now`
    /// then (what `snapshot(now:)` adds to its monotonic time).
    var wallTime: Double = 0
    var wallOffset: Double = 0
    /// Where tokens and ids are drawn (RoomRandom.swift), given by the shell.
    var random: RoomRandom
    /// The talk timer every device shows (§20.4).
    var timer: TalkTimer
    /// Whether the last state push had the timer warning (a change pushes the state).
    var timerWarned = false
    /// Goes up with every change of any deck's notes.
    var notesRevision: UInt64 = 0
    /// The output's state and the room's cross-fade (RoomCore+Output.swift, §21).
    var output = OutputSnapshot()
    var fallbackFadeMs: UInt32
    /// Viewers, polls, questions, the navigation lock (§24).
    var audience = AudienceRoom()
    /// The meeting record (§26, RoomCore+Record.swift) and the download being made.
    var record = MeetingRecord()
    var recordMaking: RecordMaking?
    /// The meeting: its id, when it started, since when the room is empty (§27, RoomCore+Meeting).
    var meeting: Meeting
    /// Floor holders and pane drivers away in their grace period, and those it ran out for (§9.6).
    var awayHolders = AwayHolders()
    /// Live shares (§29, RoomCore+Share).
    var shares = ShareBoard()
    /// Uploads being converted to PDF (§30, RoomCore+Conversions), and those a restart
    /// left unconverted (queued at the first tick).
    var conversions: ConversionQueue
    var unconverted: [ContentEntry]
    /// The code on the wall (`screen_code = true`; RoomCore+ScreenCode.swift).
    var screenCode: ScreenCode?
    /// What the shell was last told it serves (RoomCore+Served.swift).
    var served = ServedFacts()

    /// `parts`: bytes already in each partial upload's file; `storeBytes`: what the content
    /// store holds on disk (the quota counts both); `unconverted`: stored originals whose
    /// PDF doesn't exist yet (a restart during their conversion): converted again.
    public init(
        config: Config, keys: Keys, serverName: String, catalog: ContentCatalog,
        parts: [ContentID: UInt64] = [:], storeBytes: UInt64 = 0, unconverted: [ContentEntry] = [],
        epoch: String? = nil, screenCode: ScreenCode? = nil,
        random: RoomRandom
    ) {
        self.screenCode = screenCode
        var random = random
        self.config = config
        fallbackFadeMs = UInt32(clamping: config.crossfadeMs)
        self.epoch = epoch ?? StateEpoch.make(random.word())
        meeting = Meeting(id: random.hex(16))
        self.random = random
        timer = TalkTimer(warnMinutes: config.timerWarningMinutes)
        self.keys = keys
        self.serverName = serverName
        self.catalog = catalog
        ledger = UploadLedger(parts: parts, storeBytes: storeBytes)
        removals = RemovalCooldown(seconds: config.removeCooldown)
        conversions = ConversionQueue(
            limits: .init(slots: config.convert.atOnce, maxWaiting: max(config.convert.queue, unconverted.count), budget: Double(config.convert.timeoutSeconds)))
        self.unconverted = unconverted
        floor = Floor(
            config: FloorConfig(
                floorMode: config.floor,
                gracePeriod: config.gracePeriod, capacity: config.maxClients))
    }

    /// Handles one event at time `now` (monotonic seconds) and wall time `wall` (seconds
    /// since 1970) and returns what to do.
    public mutating func handle(_ event: RoomEvent, now: Double, wall: Double) -> [RoomEffect] {
        setTime(now: now, wall: wall)
        switch event {
        case .opened(let id, let address, let challenge): opened(id, address: address, challenge: challenge)
        case .closed(let id): closed(id)
        case .frame(let id, let frame): if let p = live(id) { received(frame, from: p) }
        case .malformed(let id, let tag, let error): if let p = live(id) { fail(p, tag: tag, error, request: Command.error.rawValue) }
        case .writable(let id, let on): writable(id, on)
        case .tick:
            tick()
            sendOwedStates()
            sweepParts()
            if !unconverted.isEmpty { resumeConversions() }
            conversionsTick()
            timerTick()
            audienceTick()
            meetingTick()
            screenCodeTick()
        case .wake:
            wakeAt = nil   // asked again below if the deadline is still ahead
            conversionsTick()
            apply(floor.expire(now: now))
            audienceWake()
            sendOwedStates()
            settlePictures()
        case .shuttingDown:
            for p in peers.values.sorted(by: { $0.id < $1.id }) where !p.closing {
                fail(p, tag: 0, .shuttingDown, request: Command.error.rawValue)
            }
        case .shown(let op, let error, let boxes):
            // Before the shown's push, which tells devices (the main pane's, and each pane
            // driver its own).
            if error == nil, !boxes.isEmpty { setPageBoxes(boxes) }
            shown(op: op, error: error)
        case .pageBoxes(let boxes):
            // A hotplug moved the pages: devices are told; before a shown, its push tells them.
            if setPageBoxes(boxes), screen.running == nil { pushState() }
        case .clipOpened(let serial, let result): clipOpened(serial, result)
        case .clipProgressed(let serial, let progress): clipProgressed(serial, progress)
        case .clipEnded(let serial, let ending): clipEnded(serial, ending)
        case .partOpened(let content, let writer, let failure): partOpened(content, writer: writer, failure: failure)
        case .chunkWritten(let content, let writer, let bytes, let failure):
            chunkWritten(content, writer: writer, bytes: bytes, failure: failure)
        case .partClosed(let content, let writer, let size): partClosed(content, writer: writer, size: size)
        case .proofChecked(let id, let tag, let begin, let matches): proofChecked(id, tag: tag, begin, matches: matches)
        case .uploadFinished(let id, let tag, let writer, let upload, let result):
            uploadFinished(id, tag: tag, writer: writer, upload, result)
        case .conversionProgressed(let content, let done, let total): conversionProgressed(content, done: done, total: total)
        case .conversionEnded(let content, let result): conversionEnded(content, result)
        case .imageSetStored(let id, let tag, let set, let result): imageSetStored(id, tag: tag, set, result)
        case .conversionFirstPage(let content, let entry, let pagesInAll): conversionFirstPage(content, entry, pagesInAll: pagesInAll)
        case .screenshotTaken(let id, let tag, let pieces): screenshotTaken(id, tag: tag, pieces)
        case .previewRendered(let id, let tag, let result): previewRendered(id, tag: tag, result)
        case .outputChanged(let status): outputChanged(status)
        case .recordProgressed(let id, let tag, let progress): recordProgressed(id, tag: tag, progress)
        case .recordMade(let id, let tag, let result): recordMade(id, tag: tag, result)
        case .recordSent(let id, let tag): recordSent(id, tag: tag)
        case .shareFailed(let serial, let error): shareFailed(serial: serial, error)
        case .keysDerived(let keys): keysDerived(keys)
        }
        reconcileShares()
        scheduleWake()
        announceServed()
        defer { out = [] }
        return out
    }

    /// A reloaded config: the room name applies to the next state push; what can't change
    /// while running was already kept by the caller. New passcodes apply to new
    /// registrations once their keys are derived (`.keysDerived`).
    public mutating func reload(_ config: Config) {
        self.config = config
        removals.seconds = config.removeCooldown
        if !config.record { record.clear() }   // turned off: nothing kept
    }

    /// After a restart: the screen the stage already shows again, and the floor holder
    /// waiting (in the grace period) to resume with their token.
    public mutating func restore(_ saved: SavedState, screen model: CommittedScreen?, now: Double, wall: Double) -> [RoomEffect] {
        setTime(now: now, wall: wall)
        restoreWhiteboards(saved.whiteboards)
        if let model { screen.restore(model) }
        if let i = saved.ink {
            ink = InkBoard(restoring: i)
            showAllInk()
        }
        if let t = saved.timer { timer = t }
        if let a = saved.audience { audience.restore(a, now: now) }
        if let r = saved.record, config.record { record = r }
        if let m = saved.meeting { meeting.restore(m) }
        if let h = saved.holder, let token = saved.holderToken {
            floor.restoreAbsentHolder(
                id: h.id, name: h.name, role: h.role == "moderator" ? .moderator : .presenter,
                resumeToken: token, now: now)
            if let c = model?.content { ledger.addOwner(h.id, of: c.id) }
            log(.info, "waiting \(Int(config.gracePeriod)) s for '\(h.name)' to resume the floor")
        }
        restoreWall(saved.wall, whiteboards: saved.whiteboards)
        noteAway()
        if let s = saved.sound { restoreSound(s) }
        if let c = saved.clip { restoreClip(c) }
        persist()
        scheduleWake()
        announceServed()
        defer { out = [] }
        return out
    }

    private mutating func setTime(now: Double, wall: Double) {
        self.now = now
        wallTime = wall
        wallOffset = wall - now
    }

    /// The state as a device would get it at `now`, the wall clock moved on from the last
    /// event's by as much as `now` (an event brings it back in step).
    public func snapshot(now: Double) -> Snapshot {
        var s = floor.snapshot(room: config.room, revision: pushes.revision, screen: screenState, now: now)
        s.epoch = epoch
        s.sound = sound
        s.ink = inkSnapshot
        s.console = consoleSnapshot(wall: now + wallOffset)
        s.output = output
        s.transitions = TransitionsSnapshot(fallbackFadeMs: fallbackFadeMs)
        s.audience = audienceSnapshot(privileged: true)
        s.record = recordSnapshot
        s.layout = withShares(layoutSnapshot(now: now))
        s.shares = sharesSnapshot()
        s.protocolMinor = lecternProtocolMinor
        s.meeting = meeting.id
        s.uploads = UploadsSnapshot(maxFileBytes: UInt64(config.maxUploadBytes), maxFileText: config.maxUploadText)
        s.conversions = conversionsSnapshot
        return s
    }

    // MARK: effects

    mutating func emit(_ e: RoomEffect) { out.append(e) }

    /// Logs `message` as one line (peer-supplied text escaped), unless lines like it are
    /// being left out (`LogLimiter`).
    mutating func log(_ level: Logger.Level, _ message: String) {
        for line in logLimiter.admit(message.loggable, now: now) { emit(.log(level, line)) }
    }

    mutating func persist() {
        clips.save.saved(now: now)
        var state = SavedState(screen: screen.committed, floor: floor, timer: timer, ink: ink.saved, whiteboards: whiteboardCounts, clip: savedClip)
        state.sound = SavedSound(level: Int(sound.level), muted: sound.muted)
        state.audience = audience.saved
        state.record = record.isEmpty ? nil : record
        state.meeting = meeting
        state.wall = savedWall
        emit(.persist(state))
    }

    private mutating func scheduleWake() {
        let next = [floor.nextDeadline, audience.pointer.owedAt, audience.resultsOwedAt, pushes.dueAt, pictures.settleAt, conversions.nextDeadline].compactMap { $0 }.min()
        if next != wakeAt {
            wakeAt = next
            emit(.wake(at: next))
        }
    }

    /// What devices see on the main pane: the clip while one plays over the slide, else the slide.
    var screenState: ScreenSnapshot { Self.screenState(screen) }

    // MARK: floor events

    mutating func apply(_ events: [FloorEvent]) {
        var screenGoingIdle = false
        for e in events {
            switch e {
            case .floorGranted(let to, let reason, let by):
                if let p = peer(of: to) { send(.floorGranted(reason: reason, by: by), to: p, tag: 0) }
            case .floorWithdrawn(let from, let reason, let by):
                if let p = peer(of: from) { send(.floorWithdrawn(reason: reason, by: by), to: p, tag: 0) }
            case .screenToIdle:
                changeScreen(.idle, reply: nil)
                screenGoingIdle = screen.running != nil
            case .closeConnection(let id, let error):
                if let p = live(id) {
                    send(.error(error), to: p, tag: 0)
                    close(p)
                }
            case .deviceLeft(let id):
                awayHolders.left(id, now: now, pane: wall.pane(drivenBy: id))
                ledger.removeOwner(id)
                inkDeviceLeft(id)
                shareDeviceLeft(id)
                paneDriverLeft(id)
            case .stateChanged:
                // One transition, one snapshot: while the idle screen is being shown the
                // push waits for it (`shown` pushes), so no snapshot has the floor free and
                // the old slide still up.
                if screenGoingIdle { pushes.owed = true } else { pushState(prompt: true) }
                persist()
            }
        }
        noteAway()
    }
}
