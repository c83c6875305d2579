import Foundation
import LecternConvert
import LecternModel
import LecternDisplay
import LecternPipeline
import LecternRender
import LecternRoom
import Logging
import NIOCore
import NIOPosix

extension Service {
    /// Opens the output, shows the first frame (the saved page after a restart, else the
    /// idle screen), starts the room and listens; returns the service whole, everything
    /// after that running on its own threads. Throws with a message for the admin when
    /// something stops the service from starting.
    public static func start(options: Options, logger: Logger = Logger(label: "lecternd")) throws -> Service {
        let config = options.config
        Memory.tuneForLongLife()
        let (resolved, why) = DisplaySelection.resolve(config.display)
        logger.info("display: \(why)")
        let output = try DisplaySelection.open(resolved, mode: config.mode, card: config.cardPath, connector: config.connector)
        logger.info("output: \(output.name)")
        let executable = options.renderWorker ?? renderWorkerExecutable()
        // Uploads are opened first in a bounded child (`DeckProbe`), reading pages as the render workers may.
        var probeLimits = DeckProbe.Limits()
        probeLimits.readMemoryMB = config.renderMemoryMB
        probeLimits.readCPUSeconds = renderLimits(config).cpuSeconds
        let store = try ContentStore(dataDir: config.dataDir, probe: ContentStore.Probe(executable: executable, limits: probeLimits))
        let (tls, transport) = try tlsServing(config, logger: logger)
        for path in options.preload {
            let item = try store.add(fileAt: path)
            logger.info("preloaded \(item.name) as \(item.id) (\(item.pages) pages)")
        }
        let workers = startRenderWorkers(executable, config, logger: logger)
        let stage = Stage(output: output, compositor: compositor(config, output: output, store: store, workers: workers, tls: tls))
        // After a crash or power cut: the same page as before, at once.
        let saved = loadSavedState(config, store: store, logger: logger)
        let catalog = ContentCatalog(store.entries())   // listed once: for the saved screen and the room
        let restored = try showFirstFrame(on: stage, saved: saved, catalog: catalog, logger: logger)
        logger.info("first frame on \(output.name): \(restored.first ?? "idle screen for \(config.room)")")

        var hotplug: HotplugMonitor?
        if output.wantsHotplugEvents {
            hotplug = try HotplugMonitor { fields in
                logger.info("display event: \(fields["ACTION"] ?? "?") \(fields["DEVNAME"] ?? "")")
                displayChanged(stage, logger: logger)
            }
        }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let idleUpdates = DispatchQueue(label: "lectern.idle-screen")
        // A new code on the wall redraws the idle screen, from the room's first tick on (the
        // service it draws with is made once the port is bound, below).
        let made = MadeService()
        var parts = RoomCollaborators(
            stateWriter: StateWriter(dataDir: config.dataDir),
            metrics: ServiceMetrics(starts: ServiceMetrics.recordStart(dataDir: config.dataDir), startTime: Date().timeIntervalSince1970))
        parts.onScreenCode = { _ in made.service?.updateIdleScreen() }
        parts.onCornerCode = { [weak stage] code in
            guard let stage else { return }
            // On the idle screen's queue: a playing clip holds the stage (it shows the corner after).
            idleUpdates.async { try? stage.setCornerCode(code) }
        }
        let room = try startRoom(options, loop: group.next(), stage: stage, store: store, catalog: catalog, parts: parts, logger: logger)
        // The display loop looked at the output again (a hotplug), or drew the wall again on
        // its own: devices hear of it. Posted to the room, never waited for.
        stage.onOutputChanged = { [weak stage, weak room] in
            guard let stage, let room else { return }
            reportOutput(stage, to: room)
        }
        stage.onRedrawn = { [weak room] boxes in
            guard let room else { return }
            room.onLoopWhileRunning { room.feed(.pageBoxes(boxes)) }
        }
        reportOutput(stage, to: room)
        if let saved {
            try room.loop.submit { room.restore(saved, screen: restored.screen) }.wait()
        }
        let admission = Admission(limits: connectionLimits(config))
        let server = Server(group: group, room: room, admission: admission, transport: transport, tls: tls)
        let port: Int
        do {
            port = try server.start(host: options.host, port: config.port)
        } catch {
            throw DisplaySelection.Failure(description: "can't listen on port \(config.port): \(error) (another lecternd running?)")
        }
        let service = Service(
            options: options, logger: logger,
            parts: Parts(
                store: store, tls: tls, transport: transport, workers: workers, stage: stage, hotplug: hotplug,
                group: group, room: room, admission: admission, server: server, port: port, idleUpdates: idleUpdates))
        made.service = service
        try service.startWebRemote(group: group)
        service.startMetrics(group: group)
        service.startIdleClock(loop: group.next())
        if port != config.port || config.port == 0 {
            try stage.setIdle(service.idleScreen(port: port))
        }
        logger.info(
            "listening on \(options.host):\(port)\(tls == nil ? " (plain)" : transport.allowPlain ? " (TLS and plain)" : " (TLS)"), room '\(config.room)', floor \(config.floor.rawValue)"
        )
        return service
    }

    /// Loads (or makes) the certificate when `tls` is on; a certificate that can't be read
    /// stops the service with a message for the admin.
    static func tlsServing(_ config: Config, logger: Logger) throws -> (TLSServing?, TransportPolicy) {
        guard config.tls else {
            logger.warning("tls = false: connections are not encrypted")
            return (nil, TransportPolicy(tls: false, allowPlain: true))
        }
        do {
            let identity = try TLSIdentity.load(
                certificate: config.tlsCertificate, key: config.tlsKey, dataDir: config.dataDir, room: config.room,
                addresses: NetworkAddresses.current())
            let tls = try TLSServing(identity: identity, room: config.room)
            logger.info(
                "TLS: \(identity.selfSigned ? "self-signed certificate" : "certificate") \(identity.source), fingerprint \(identity.fingerprint.hex)\(config.allowPlain ? "; plain connections allowed" : "")"
            )
            return (tls, TransportPolicy(tls: true, allowPlain: config.allowPlain))
        } catch let f as TLSIdentity.Failure {
            throw DisplaySelection.Failure(description: f.description)
        }
    }

    /// The render workers, started now, while the output opens and the listeners bind: the
    /// first page (a restored one) doesn't wait for a worker to load. Nil without a lecternd
    /// to run them.
    private static func startRenderWorkers(_ executable: String?, _ config: Config, logger: Logger) -> RenderWorkers? {
        guard let executable else {
            logger.warning("no lecternd to run render workers: pages are drawn and uploads opened in this process, and one that overruns its budget can't be stopped")
            return nil
        }
        let w = RenderWorkers(executable: executable, limits: renderLimits(config))
        do {
            try w.wall.start()
            try w.background.start()
        } catch {
            logger.error("render workers: \(error)")
        }
        return w
    }

    /// The frame pipeline for the output's mode, showing the idle screen to begin with.
    private static func compositor(_ config: Config, output: Output, store: ContentStore, workers: RenderWorkers?, tls: TLSServing?) -> Compositor {
        let m = output.mode
        let settings = Compositor.Settings(
            width: m.width, height: m.height, background: config.background,
            overscanPercent: config.overscanPercent)
        let idle = idleScreen(config: config, tls: tls, port: config.port, httpPort: nil, code: nil)
        return Compositor(
            settings: settings, idle: idle,
            cacheBytes: config.pageCacheBytes, budget: config.renderBudget,
            forget: { id in store.forget(id) }, workers: workers,
            slow: SlowPages(file: config.dataDir + "/slow-pages"),
            locate: { id in try store.file(id) },
            pageCount: { id in store.item(id).map(\.pages) },
            documents: { id in try store.document(id) })
    }

    /// Shows the saved wall or screen (a wall of several panes comes back as it was, every
    /// pane at once, §9.7), else the idle screen. Returns the saved screen shown (nil: none,
    /// or it could not be shown) and what is on the output, for the log.
    private static func showFirstFrame(
        on stage: Stage, saved: SavedState?, catalog: ContentCatalog, logger: Logger
    ) throws -> (screen: CommittedScreen?, first: String?) {
        var restored = saved?.screen(in: catalog)
        var first: String?
        if let plan = saved?.wall?.plan(main: restored?.scene ?? .idle, whiteboards: saved?.whiteboards, in: catalog) {
            do {
                try stage.show(plan)
                first = "\(plan) (restored)"
            } catch {
                logger.warning("could not show the saved wall \(plan): \(error)")
            }
        }
        if first == nil, let r = restored {
            do {
                try stage.show(r.scene)
                first = "\(r.scene) (restored)"
            } catch {
                logger.warning("could not show the saved \(r.scene): \(error)")
                restored = nil
            }
        }
        if first == nil { try stage.show(.idle) }
        return (restored, first)
    }

    /// The room on its loop, built whole: `parts` and its record maker, and its shares' caps.
    private static func startRoom(
        _ options: Options, loop: EventLoop, stage: Stage, store: ContentStore, catalog: ContentCatalog, parts: RoomCollaborators, logger: Logger
    ) throws -> Room {
        let config = options.config
        let converters = converters(config)
        for c in converters.all { if let why = c.unavailable { logger.notice("\(c.name) files can't be converted: \(why)") } }
        let limits = renderLimits(config)
        var parts = parts
        parts.recordMaker = RecordMaker(
            executable: options.renderWorker ?? renderWorkerExecutable(), dataDir: config.dataDir,
            memoryMB: limits.memoryBytes >> 20, cpuSeconds: limits.cpuSeconds)
        let room = try Room(loop: loop, config: config, stage: stage, store: store, catalog: catalog, converters: converters, parts: parts, logger: logger)
        configureShares(room.shareWorker, options, logger: logger)
        stage.setFallbackTransition(RoomCore.fallbackTransition(ms: UInt32(clamping: config.crossfadeMs)))
        return room
    }
}

/// The service `Service.start` is making, for the room's callbacks set before it exists
/// (weak: the room doesn't keep its service).
private final class MadeService {
    weak var service: Service?
}
