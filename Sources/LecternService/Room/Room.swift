import Foundation
import LecternConvert
import LecternModel
import LecternSystem
import LecternProtocol
import LecternRoom
import Logging
import NIOCore

/// The meeting room's shell: owns its event loop, the peers' links and the slow workers,
/// feeds every event into `RoomCore` with the time, and carries out the effects it
/// returns, in order (Room+Effects.swift). No decisions of its own: those are the core's.
/// Confined to `loop`.
final class Room: @unchecked Sendable {
    let loop: EventLoop
    let logger: Logger
    var core: RoomCore
    let clock: @Sendable () -> Double
    /// The wall clock given to the core with each event (the talk timer's, the record's time).
    let wallClock: @Sendable () -> Double
    let stageWorker: StageWorker
    let uploadWorker: UploadWorker
    /// Live shares' decoders and the routes of their media frames (§29).
    let shareWorker: ShareWorker
    /// Converts uploads that are neither PDFs nor clips (§30).
    let conversionWorker: ConversionWorker
    /// The slide for viewers over HTTP (§24.2); who may fetch what is the core's decision.
    let pageImages: PageImages
    /// The deck the web server may hand out now (§24.5), from the core's decision.
    let download = DeckDownload()
    let store: ContentStore
    /// Where the workers' reports come in (dropped once the room stopped).
    let inbox: RoomInbox
    let report: @Sendable (RoomEvent) -> Void
    var links: [ConnectionID: PeerLink] = [:]
    private var nextID: ConnectionID = 1
    private var events: [RoomEvent] = []
    private var feeding = false
    private var ticker: RepeatedTask?
    var wakeTask: Scheduled<Void>?
    /// Saves what is on screen and who holds the floor after every change.
    let stateWriter: StateWriter?
    /// Replies wait for the state write that holds what they acknowledge (Room+DurableReplies.swift).
    var durable: DurableReplies?
    /// Counts page turns, clip frames, uploads and errors for `/metrics` (ServiceMetrics.swift).
    let metrics: ServiceMetrics?
    /// Makes the meeting record's PDF (§26) in a worker process.
    let recordMaker: RecordMaker?
    /// The code on the wall and the corner's (Room+ScreenCode.swift).
    var codes: RoomCodes
    /// Derives the room's keys off the loop (a reload, a new code on the wall).
    let keyDeriver: KeyDeriver

    /// `catalog`: the store's files as the room knows them (listed from the store if nil);
    /// `parts`: its collaborators, made before it (RoomCollaborators.swift).
    init(
        loop: EventLoop, config: Config, stage: Stage, store: ContentStore, catalog: ContentCatalog? = nil, converters: DeckConverters = .none,
        parts: RoomCollaborators = RoomCollaborators(), logger: Logger,
        clock: @escaping @Sendable () -> Double = { MonotonicClock.now() },
        wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) throws {
        self.loop = loop
        self.logger = logger
        self.clock = clock
        self.wallClock = wallClock
        let area = try UploadArea(dataDir: config.dataDir)
        let code = config.screenCode ? ScreenCode(lifetime: Double(config.screenCodeMinutes) * 60, now: clock(), random: { UInt32.random(in: .min ... .max) }) : nil
        codes = RoomCodes(code: code?.code, onScreenCode: parts.onScreenCode, onCornerCode: parts.onCornerCode)
        stateWriter = parts.stateWriter
        recordMaker = parts.recordMaker
        metrics = parts.metrics
        keyDeriver = KeyDeriver(secret: SaltSecret.load(dataDir: config.dataDir))
        core = RoomCore(
            config: config, keys: try keyDeriver.keysNow(config, screenCode: code?.code), serverName: "lecternd \(lecternVersion)",
            catalog: catalog ?? ContentCatalog(store.entries()), parts: area.parts(),
            storeBytes: UploadArea.bytes(in: store.directory.path), unconverted: converters.all.isEmpty ? [] : store.unconverted(),
            screenCode: code, random: .system)
        self.store = store
        let inbox = RoomInbox(loop: loop)
        self.inbox = inbox
        let report: @Sendable (RoomEvent) -> Void = { inbox.report($0) }
        self.report = report
        let sound = ClipSoundSource(audioDevice: config.audioDevice, log: { logger.info("\($0)") })
        stageWorker = StageWorker(stage: stage, store: store, sound: sound, report: report)
        shareWorker = ShareWorker(stage: stage, loop: loop, link: { inbox.room?.link($0) }, clock: clock, report: report)
        shareWorker.sound = sound
        uploadWorker = UploadWorker(area: area, store: store, converters: converters, report: report)
        conversionWorker = ConversionWorker(store: store, converters: converters, limits: config.convert.limits, dataDir: config.dataDir, report: report)
        pageImages = PageImages(
            render: { content, page, width, part in
                let compositor = stage.compositor   // replaced when the output's mode changes
                let size = Fit.previewSize(width: compositor.settings.width, height: compositor.settings.height, maxWidth: width, maxHeight: 0)
                return try compositor.preview(content: content, page: page, width: size.width, height: size.height, part: part, keep: false)
            },
            outputSize: { (stage.compositor.settings.width, stage.compositor.settings.height) })
        core.setSoundDevice(sound.pcm)
        inbox.attach(self)
        holdRepliesUntilDurable()
        ticker = loop.scheduleRepeatedTask(initialDelay: .milliseconds(500), delay: .milliseconds(500)) { [weak self] _ in
            self?.feed(.tick)
        }
    }

    /// Before the event loop shuts down: the peers get `shuttingDown` and are closed; work
    /// still running finishes, its report is dropped.
    func stop() {
        // Every peer is told (error shuttingDown) before its connection closes; once.
        if inbox.isOpen {
            if loop.inEventLoop { feed(.shuttingDown) } else { try? loop.submit { self.feed(.shuttingDown) }.wait() }
        }
        inbox.close()
        if loop.inEventLoop { shareWorker.stopAll() } else { try? loop.submit { self.shareWorker.stopAll() }.wait() }
        conversionWorker.shutdown()
        ticker?.cancel()
        ticker = nil
    }

    var config: Config { core.config }

    /// A reloaded config: new passcodes apply to new registrations once their keys are
    /// derived (off the loop), and then `done` runs (on the loop); passcodes that don't go
    /// together refuse the reload.
    func reload(_ new: Config, done: @escaping () -> Void) throws {
        loop.preconditionInEventLoop()
        let serial = try keyDeriver.rekey(new, screenCode: codes.drawn, report: report)
        core.reload(new)
        codes.keysAwaited.append((serial, done))
    }

    /// After a restart: the saved screen (already on the output) and floor holder.
    func restore(_ saved: SavedState, screen: CommittedScreen?) {
        loop.preconditionInEventLoop()
        carry(core.restore(saved, screen: screen, now: clock(), wall: wallClock()))
        feed(.pageBoxes(stageWorker.stage.pageBoxes))
    }

    func snapshot() -> Snapshot { core.snapshot(now: clock()) }

    // MARK: events in

    /// A new peer: it gets an id, and the core says hello.
    func accept(_ link: PeerLink) -> ConnectionID {
        let id = nextID
        nextID += 1
        links[id] = link
        feed(.opened(id, address: link.remoteAddress, challenge: Hello.freshChallenge()))
        return id
    }

    /// A share's media frames go to its decoder (ShareWorker), everything else to the core.
    func received(_ id: ConnectionID, _ frames: [WireFrame]) { for f in frames where !shareWorker.take(id, f) { feed(.frame(id, f)) } }
    func malformed(_ id: ConnectionID, tag: UInt16, _ error: LecternError) { feed(.malformed(id, tag: tag, error)) }
    func writable(_ id: ConnectionID, _ on: Bool) { feed(.writable(id, on)) }

    func closed(_ id: ConnectionID) {
        feed(.closed(id))
        links[id] = nil
        durable?.closed(id)
    }

    /// Handles `event` and what it causes, one event at a time: an event reported while
    /// effects are carried out waits until they all are.
    func feed(_ event: RoomEvent) {
        loop.preconditionInEventLoop()
        events.append(event)
        guard !feeding else { return }
        feeding = true
        while !events.isEmpty {
            let event = events.removeFirst(), now = clock()
            metrics?.observe(event, now: now)
            carry(core.handle(event, now: now, wall: wallClock()))
        }
        feeding = false
    }

    /// Runs `body` on the loop unless the room has stopped (its loop may be gone).
    func onLoopWhileRunning(_ body: @escaping @Sendable () -> Void) { inbox.whileOpen(body) }

    /// A link by its connection's id (nil once closed).
    func link(_ id: ConnectionID) -> PeerLink? { links[id] }
}

/// The version the service reports in hello.
public let lecternVersion = "0.1.0"
