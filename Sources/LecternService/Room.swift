import Foundation
import LecternConvert
import LecternCore
import LecternProtocol
import LecternRoom
import Logging
import NIOCore

/// What the room needs of a peer's connection (a `PeerHandler`, over TCP or WebSocket).
protocol PeerLink: AnyObject {
    var remoteAddress: String { get }
    func write(_ bytes: [UInt8])
    /// One large frame, after what was written; succeeds once the connection took it.
    func write(frame: ByteBuffer) -> EventLoopFuture<Void>
    func setReading(_ on: Bool)
    /// It registered as a device.
    func registered()
    func close()
}

extension PeerHandler: PeerLink {}

/// The meeting room's shell: owns its event loop, the peers' links and the slow workers,
/// feeds every event into `RoomCore` with the time, and carries out the effects it
/// returns, in order. No decisions of its own: those are the core's. Confined to `loop`.
final class Room: @unchecked Sendable {
    let loop: EventLoop
    let logger: Logger
    let core: RoomCore
    let clock: @Sendable () -> Double
    /// The wall clock given to the core with each event (the talk timer's, the record's time).
    let wallClock: @Sendable () -> Double
    private var stageWorker: StageWorker!
    private var uploadWorker: UploadWorker!
    /// Live shares' decoders and the routes of their media frames (§29).
    private(set) var shareWorker: ShareWorker!
    /// Converts uploads that are neither PDFs nor clips (§30).
    private(set) var conversionWorker: ConversionWorker!
    private let store: ContentStore
    private var links: [ConnectionID: PeerLink] = [:]
    private var nextID: ConnectionID = 1
    private var events: [RoomEvent] = []
    private var feeding = false
    private var ticker: RepeatedTask?
    private var wakeTask: Scheduled<Void>?
    /// Cleared by `stop()`: workers' reports are dropped from then on (the loop is going away).
    private let reportLock = NSLock()
    private var reporting = true
    /// Saves what is on screen and who holds the floor after every change.
    var stateWriter: StateWriter?
    /// Replies wait for the state write that holds what they acknowledge (Room+DurableReplies.swift).
    var durable: DurableReplies?
    /// Counts page turns, clip frames, uploads and errors for `/metrics` (ServiceMetrics.swift).
    var metrics: ServiceMetrics?
    /// Makes the meeting record's PDF (§26) in a worker process.
    var recordMaker: RecordMaker?
    private(set) var report: (@Sendable (RoomEvent) -> Void)!

    /// `catalog`: the store's files as the room knows them (listed from the store if nil).
    init(
        loop: EventLoop, config: Config, stage: Stage, store: ContentStore, catalog: ContentCatalog? = nil, converters: DeckConverters = .none,
        logger: Logger,
        clock: @escaping @Sendable () -> Double = { MonotonicClock.now() },
        wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) throws {
        self.loop = loop
        self.logger = logger
        self.clock = clock
        self.wallClock = wallClock
        let area = try UploadArea(dataDir: config.dataDir)
        let code = config.screenCode ? ScreenCode(lifetime: Double(config.screenCodeMinutes) * 60, now: clock(), random: { UInt32.random(in: .min ... .max) }) : nil
        screenCode = code
        wallCode = code?.code
        keyDeriver = KeyDeriver(secret: SaltSecret.load(dataDir: config.dataDir))
        core = RoomCore(
            config: config, keys: try keyDeriver.keysNow(config, screenCode: code?.code), serverName: "lecternd \(lecternVersion)",
            catalog: catalog ?? ContentCatalog(store.entries()), parts: area.parts(),
            storeBytes: UploadArea.bytes(in: store.directory.path), unconverted: converters.all.isEmpty ? [] : store.unconverted(),
            random: SystemRandomNumberGenerator())
        self.store = store
        let report: @Sendable (RoomEvent) -> Void = { [weak self] e in
            guard let self else { return }
            self.reportLock.withLock { if self.reporting { self.loop.execute { self.feed(e) } } }
        }
        self.report = report
        let logger = self.logger
        let sound = ClipSoundSource(audioDevice: config.audioDevice, log: { logger.info("\($0)") })
        stageWorker = StageWorker(stage: stage, store: store, sound: sound, report: report)
        core.setSoundDevice(sound.pcm)
        shareWorker = ShareWorker(stage: stage, loop: loop, link: { [weak self] in self?.links[$0] }, clock: clock, report: report)
        uploadWorker = UploadWorker(area: area, store: store, converters: converters, report: report)
        conversionWorker = ConversionWorker(store: store, converters: converters, limits: config.convert.limits, dataDir: config.dataDir, report: report)
        shareWorker.sound = sound
        pageImages = PageImages(
            render: { content, page, width, part in
                let compositor = stage.compositor   // replaced when the output's mode changes
                let size = Fit.previewSize(width: compositor.settings.width, height: compositor.settings.height, maxWidth: width, maxHeight: 0)
                return try compositor.preview(content: content, page: page, width: size.width, height: size.height, part: part, keep: false)
            },
            outputSize: { (stage.compositor.settings.width, stage.compositor.settings.height) })
        ticker = loop.scheduleRepeatedTask(initialDelay: .milliseconds(500), delay: .milliseconds(500)) { [weak self] _ in
            self?.feed(.tick)
            self?.checkScreenCode()
        }
    }

    /// Before the event loop shuts down: the peers get `shuttingDown` and are closed; work
    /// still running finishes, its report is dropped.
    func stop() {
        // Every peer is told (error shuttingDown) before its connection closes; once.
        if reportLock.withLock({ reporting }) {
            if loop.inEventLoop { feed(.shuttingDown) } else { try? loop.submit { self.feed(.shuttingDown) }.wait() }
        }
        reportLock.withLock { reporting = false }
        if loop.inEventLoop { shareWorker.stopAll() } else { try? loop.submit { self.shareWorker.stopAll() }.wait() }
        conversionWorker.shutdown()
        ticker?.cancel()
        ticker = nil
    }

    /// The code on the wall (Room+ScreenCode.swift), when `screen_code = true`.
    var screenCode: ScreenCode?
    var onScreenCode: ((String) -> Void)?
    /// The code on the wall: the one whose keys are in force (nil: no code).
    var wallCode: String?
    /// What waits for keys being derived (a new code for the wall, a reload's end): run,
    /// in order, once the keys of that serial (or newer ones) are in force.
    var keysAwaited: [(serial: UInt64, then: () -> Void)] = []
    /// Connections joining now (the core's `.joining`): the corner shows the code then.
    var joining = 0
    /// The code in the wall's corner now (nil: none), and who hears of its changes.
    var cornerCode: String?
    var onCornerCode: ((String?) -> Void)?
    /// Derives the room's keys off the loop (a reload, a new code on the wall).
    let keyDeriver: KeyDeriver

    var config: Config { core.config }

    /// A reloaded config: new passcodes apply to new registrations once their keys are
    /// derived (off the loop), and then `done` runs (on the loop); passcodes that don't go
    /// together refuse the reload.
    func reload(_ new: Config, done: @escaping () -> Void) throws {
        loop.preconditionInEventLoop()
        let serial = try keyDeriver.rekey(new, screenCode: screenCode?.code, report: report)
        core.reload(new)
        keysAwaited.append((serial, done))
    }

    /// After a restart: the saved screen (already on the output) and floor holder.
    func restore(_ saved: SavedState, screen: CommittedScreen?) {
        loop.preconditionInEventLoop()
        carry(core.restore(saved, screen: screen, now: clock(), wall: wallClock()))
        feed(.pageBox(stageWorker.stage.pageBox))
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

    /// The slide for viewers over HTTP (§24.2); who may fetch what is the core's decision.
    private(set) var pageImages: PageImages!

    /// The deck the web server may hand out now (§24.5), from the core's decision.
    let download = DeckDownload()

    // MARK: effects out

    /// Runs `body` on the loop unless the room has stopped (its loop may be gone).
    func onLoopWhileRunning(_ body: @escaping @Sendable () -> Void) {
        reportLock.withLock { if reporting { loop.execute(body) } }
    }

    /// A link by its connection's id (nil once closed).
    func link(_ id: ConnectionID) -> PeerLink? { links[id] }

    private func carry(_ all: [RoomEffect]) {
        for effect in all { metrics?.observe(effect, now: clock()) }
        // Replies wait for the state write holding what they acknowledge.
        let effects = durable?.pass(all) ?? all
        for effect in effects {
            switch effect {
            case .send(let id, let bytes): links[id]?.write(bytes)
            case .close(let id): links[id]?.close()
            case .setReading(let id, let on): links[id]?.setReading(on)
            case .registered(let id):
                links[id]?.registered()
                screenCode?.registered(floorDevice: core.isFloorDevice(id))
            case .wake(let at):
                wakeTask?.cancel()
                wakeTask = at.map { at in
                    loop.scheduleTask(in: .milliseconds(Int64(max(0, at - clock()) * 1000) + 5)) { [weak self] in self?.feed(.wake) }
                }
            case .showWall(let op, let plan): stageWorker.showWall(op: op, plan)
            case .openClip(let serial, let content): stageWorker.openClip(serial: serial, content: content)
            case .playClip(let serial, let loop, let layout, let pane): stageWorker.playClip(serial: serial, loop: loop, layout: layout, pane: pane)
            case .clipSound(let serial): stageWorker.clipSound(serial: serial)
            case .discardClip(let serial): stageWorker.discardClip(serial: serial)
            case .steerClip(let serial, let command): stageWorker.steerClip(serial: serial, command)
            case .shareStart(let serial, let config): shareWorker.start(serial: serial, config)
            case .shareRoute(let serial, let connection, let device): shareWorker.route(serial: serial, connection: connection, device: device)
            case .shareStop(let serial): shareWorker.stop(serial: serial)
            case .sharePicture(let id, let tag, let serial, let w, let h):
                shareWorker.picture(id, tag: tag, serial: serial, maxWidth: w, maxHeight: h)
            case .shareRecordFrame(let serial, let path, let after): shareWorker.recordFrame(serial: serial, path: path, after: after)
            case .clearRecordFrames(let directory): shareWorker.clearRecordFrames(directory)
            case .openPart(let content, let writer, let offset, let hashing):
                uploadWorker.openPart(content, writer: writer, offset: offset, hashing: hashing)
            case .writeChunk(let content, let writer, let data): uploadWorker.writeChunk(content, writer: writer, data)
            case .closePart(let content, let writer): uploadWorker.closePart(content, writer: writer)
            case .removePart(let content): uploadWorker.area.remove(content.hex)
            case .checkProof(let id, let tag, let begin, let challenge):
                uploadWorker.checkProof(id, tag: tag, begin, challenge: challenge)
            case .finishUpload(let id, let tag, let writer, let upload): uploadWorker.finish(id, tag: tag, writer: writer, upload)
            case .screenshot(let id, let tag, let w, let h, let jpeg): stageWorker.screenshot(id, tag: tag, maxWidth: w, maxHeight: h, jpeg: jpeg)
            case .renderPreview(let id, let tag, let content, let page, let w, let h, let part):
                stageWorker.renderPreview(id, tag: tag, content: content, page: page, maxWidth: w, maxHeight: h, part: part)
            case .saveNotes(let content, let notes):
                do { try store.saveNotes(notes, for: content.hex) } catch { logger.warning("notes of \(content.hex.prefix(12)) not saved: \(error)") }
            case .removeUpload(let content): store.removeUpload(content.hex)
            case .startConversion(let entry, let format): conversionWorker.start(entry, format: format)
            case .stopConversion(let content): conversionWorker.stop(content)
            case .discardUpload(let content): store.discardUpload(content.hex)
            case .storeImageSet(let id, let tag, let set): uploadWorker.storeImageSet(id, tag: tag, set)
            case .prerender(let content, let page, let part): stageWorker.stage.compositor.prerenderNeighbours(content: content, page: page, part: part)
            case .prepareConverter(let name): conversionWorker.converters.prepare(forFileNamed: name)
            case .inkPage(let page, let layer): stageWorker.stage.ink.setLayer(layer, for: .init(content: page.content, page: page.page))
            case .pointer(let device, let page, let point, let lifted):
                stageWorker.stage.ink.point(device, page: .init(content: page.content, page: page.page), point, lifted: lifted)
            case .setFallbackTransition(let t): stageWorker.stage.setFallbackTransition(t)
            case .persist(let state): stateWriter?.save(state, generation: durable?.asked ?? 0)
            case .setSound(let level, let muted): stageWorker.sound?.level.set(level: level, muted: muted)
            case .log(let level, let message): logger.log(level: level, "\(message)")
            case .makeRecord(let id, let tag, let job):
                let store = self.store
                if let recordMaker {
                    recordMaker.make(job, for: id, tag: tag, paths: { store.deckPath(of: $0) }, report: report)
                } else {
                    feed(.recordMade(id, tag: tag, .failure(.recordFailed("the appliance can't make records now"))))
                }
            case .offerDownload(let offer):
                download.set(offer.map { DeckDownload.Offer(token: $0.token, path: store.deckPath(of: $0.content), name: $0.name) })
            case .pageImageAccess(let access): pageImages.setAccess(access)
            case .joining(let count):
                joining = count
                checkJoiningCorner()
            case .keysInForce(let serial):
                let due = keysAwaited.filter { $0.serial <= serial }
                keysAwaited.removeAll { $0.serial <= serial }
                for d in due { d.then() }
            case .sendRecord(let id, let tag, let device, let pages, let pdf):
                guard let link = links[id], let file = pdf.file as? FileChunks else {
                    feed(.recordSent(id, tag: tag))
                    break
                }
                let report = self.report!
                RecordSender(link: link, file: file, tag: tag, device: device, pages: pages, loop: loop) { report(.recordSent(id, tag: tag)) }.start()
            }
        }
    }
}

/// The version the service reports in hello.
public let lecternVersion = "0.1.0"
