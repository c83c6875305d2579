import Foundation
import LecternConvert
import LecternCore
import LecternDisplay
import LecternPipeline
import LecternRender
import LecternRoom
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// `lecternd`: wires the output, the frame pipeline, the content store and the network
/// together. Start it with `start()`; everything after that runs on its own threads.
public final class Service: @unchecked Sendable {
    public struct Options: Sendable {
        public var config = Config()
        /// The address to listen on.
        public var host = "0.0.0.0"
        /// Files added to the store at start (the demo deck of `make run`).
        public var preload: [String] = []
        /// The lecternd that draws pages (`--render-worker`); nil: this process's own
        /// executable when it is lecternd, else a lecternd beside it (tests, benches).
        public var renderWorker: String?
        public init() {}
        public init(config: Config) { self.config = config }
    }

    public let options: Options
    public let logger: Logger
    public private(set) var output: Output!
    public private(set) var stage: Stage!
    public private(set) var store: ContentStore!
    /// The TCP port the protocol listens on (the bound one when the config says 0).
    public private(set) var port = 0
    private var group: MultiThreadedEventLoopGroup?
    private var server: Server?
    private var hotplug: HotplugMonitor?
    private var webServer: WebRemoteServer?
    private let webLock = NSLock()
    private var _httpPort: Int?
    private var heartbeat: Heartbeat?
    /// The render worker processes (nil: pages drawn in-process, see `renderWorkerExecutable`).
    public private(set) var workers: RenderWorkers?
    private var stopped = false
    var room: Room!
    /// `/metrics` (Service+Metrics.swift): the counters, and the listener when configured.
    var metrics: ServiceMetrics?
    var metricsServer: MetricsServer?
    /// The port `/metrics` listens on (the bound one for port 0); nil when off.
    public internal(set) var metricsPort: Int?
    /// The certificate both ports present (nil: `tls = false`), its server context, and
    /// what a connection's first byte makes of it (TLSIdentity.swift, TransportSniffer.swift).
    public var tlsIdentity: TLSIdentity? { tls?.current.identity }
    /// Swapped by a reload (`TLSServing`): new connections get the certificate in force.
    var tls: TLSServing?
    var transport = TransportPolicy(tls: false, allowPlain: true)
    /// Both listeners' connections, counted together (`ConnectionGate`).
    var admission: Admission!
    /// Idle-screen changes made from the room's loop, shown in order (`updateIdleScreen`).
    let idleUpdates = DispatchQueue(label: "lectern.idle-screen")

    public init(options: Options, logger: Logger = Logger(label: "lecternd")) {
        self.options = options
        self.config = options.config
        self.logger = logger
    }

    /// The config in force (after SIGHUP reloads).
    public internal(set) var config: Config

    /// Opens the output, shows the idle screen and starts listening. Throws with a message
    /// for the admin when something stops the service from starting.
    public func start() throws {
        let config = options.config
        Memory.tuneForLongLife()
        let (resolved, why) = DisplaySelection.resolve(config.display)
        logger.info("display: \(why)")
        output = try DisplaySelection.open(resolved, mode: config.mode, card: config.cardPath, connector: config.connector)
        logger.info("output: \(output.name)")
        // Uploads are opened first in a bounded child (`DeckProbe`), reading pages as the render workers may.
        var probeLimits = DeckProbe.Limits()
        probeLimits.readMemoryMB = config.renderMemoryMB
        probeLimits.readCPUSeconds = Self.renderLimits(config).cpuSeconds
        store = try ContentStore(
            dataDir: config.dataDir, probe: ContentStore.Probe(executable: options.renderWorker ?? Self.renderWorkerExecutable(), limits: probeLimits))
        try startTLS(config)
        for path in options.preload {
            let item = try store.add(fileAt: path)
            logger.info("preloaded \(item.name) as \(item.id) (\(item.pages) pages)")
        }
        let m = output.mode
        let settings = Compositor.Settings(
            width: m.width, height: m.height, background: config.background,
            overscanPercent: config.overscanPercent)
        let store = self.store!
        if let executable = options.renderWorker ?? Self.renderWorkerExecutable() {
            let w = RenderWorkers(executable: executable, limits: Self.renderLimits(config))
            // Started now, while the output opens and the listeners bind: the first page
            // (a restored one) doesn't wait for a worker to load.
            do {
                try w.wall.start()
                try w.background.start()
            } catch {
                logger.error("render workers: \(error)")
            }
            workers = w
        } else {
            logger.warning("no lecternd to run render workers: pages are drawn and uploads opened in this process, and one that overruns its budget can't be stopped")
        }
        let compositor = Compositor(
            settings: settings, idle: idleScreen(port: config.port),
            cacheBytes: config.pageCacheBytes, budget: config.renderBudget,
            forget: { id in store.forget(id) }, workers: workers,
            slow: SlowPages(file: config.dataDir + "/slow-pages"),
            locate: { id in try store.file(id) },
            pageCount: { id in store.item(id).map(\.pages) },
            documents: { id in try store.document(id) })
        stage = Stage(output: output, compositor: compositor)
        // The display loop looked at the output again (a hotplug), or drew the wall again on
        // its own: devices hear of it. Posted to the room, never waited for.
        stage.onOutputChanged = { [weak self] in self?.reportOutput() }
        stage.onRedrawn = { [weak self] boxes in
            guard let room = self?.room else { return }
            room.onLoopWhileRunning { room.feed(.pageBox(boxes.first ?? nil)) }
        }
        // After a crash or power cut: the same page as before, at once.
        let saved = loadSavedState(store: store)
        let catalog = ContentCatalog(store.entries())   // listed once: for the saved screen and the room
        var restored = saved?.screen(in: catalog)
        // A wall of several panes comes back as it was, every pane at once (§9.7).
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
        logger.info("first frame on \(output.name): \(first ?? "idle screen for \(config.room)")")

        if output.wantsHotplugEvents {
            let logger = self.logger
            hotplug = try HotplugMonitor { [weak self] fields in
                logger.info("display event: \(fields["ACTION"] ?? "?") \(fields["DEVNAME"] ?? "")")
                self?.displayChanged()
            }
        }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.group = group
        let converters = Self.converters(config)
        for c in converters.all { if let why = c.unavailable { logger.notice("\(c.name) files can't be converted: \(why)") } }
        room = try Room(loop: group.next(), config: config, stage: stage, store: store, catalog: catalog, converters: converters, logger: logger)
        room.stateWriter = StateWriter(dataDir: config.dataDir)
        room.holdRepliesUntilDurable()
        let limits = Self.renderLimits(config)
        room.recordMaker = RecordMaker(
            executable: options.renderWorker ?? Self.renderWorkerExecutable(), dataDir: config.dataDir,
            memoryMB: limits.memoryBytes >> 20, cpuSeconds: limits.cpuSeconds)
        configureShares(room.shareWorker, config)
        stage.setFallbackTransition(RoomCore.fallbackTransition(ms: UInt32(clamping: config.crossfadeMs)))
        reportOutput()
        room.onScreenCode = { [weak self] _ in
            guard let self else { return }
            self.updateIdleScreen()
        }
        room.onCornerCode = { [weak self] code in
            guard let self else { return }
            // On the idle screen's queue: a playing clip holds the stage (it shows the corner after).
            self.idleUpdates.async { [stage = self.stage!] in try? stage.setCornerCode(code) }
        }
        if let saved {
            let room = self.room!
            try room.loop.submit { room.restore(saved, screen: restored) }.wait()
        }
        admission = Admission(limits: Self.connectionLimits(config))
        let server = Server(group: group, room: room, admission: admission, transport: transport, tls: tls)
        do {
            port = try server.start(host: options.host, port: config.port)
        } catch {
            throw DisplaySelection.Failure(description: "can't listen on port \(config.port): \(error) (another lecternd running?)")
        }
        self.server = server
        try startWebRemote(group: group)
        startMetrics(group: group)
        startIdleClock(loop: group.next())
        if port != config.port || config.port == 0 {
            try stage.setIdle(idleScreen(port: port))
        }
        logger.info(
            "listening on \(options.host):\(port)\(tlsIdentity == nil ? " (plain)" : transport.allowPlain ? " (TLS and plain)" : " (TLS)"), room '\(config.room)', floor \(config.floor.rawValue)"
        )
    }

    /// The port the web remote listens on (the bound one when the config says 0); nil when
    /// it is off or not listening (yet).
    public var httpPort: Int? { webLock.lock(); defer { webLock.unlock() }; return _httpPort }

    func setWebRemote(_ server: WebRemoteServer, port: Int) {
        webLock.lock()
        webServer = server
        _httpPort = port
        webLock.unlock()
        // The idle screen shows the address a phone opens, as text and as a QR code.
        try? stage.setIdle(idleScreen(port: self.port))
    }

    var isStopped: Bool { webLock.lock(); defer { webLock.unlock() }; return stopped }

    public func stop() {
        // Once: a second stop would wait on channels of an event loop group already gone.
        webLock.lock(); let first = !stopped; stopped = true; webLock.unlock()
        guard first else { return }
        heartbeat?.cancel()
        webLock.lock(); let web = webServer; webLock.unlock()
        web?.stop()
        metricsServer?.stop()
        server?.stop()
        room?.stop()
        try? group?.syncShutdownGracefully()
        room?.stateWriter?.flush()
        workers?.stop()
    }

    /// Starts the watchdog's `Heartbeat`: `alive` (systemd's WATCHDOG=1) is called every
    /// `interval` seconds while the stage still presents.
    public func startHeartbeat(interval: Double, alive: @escaping @Sendable () -> Void) {
        heartbeat = Heartbeat(stage: stage, interval: interval, logger: logger, alive: alive)
    }
}

extension Service {
    /// Loads (or makes) the certificate when `tls` is on; a certificate that can't be read
    /// stops the service with a message for the admin.
    func startTLS(_ config: Config) throws {
        guard config.tls else {
            logger.warning("tls = false: connections are not encrypted")
            return
        }
        do {
            let identity = try TLSIdentity.load(
                certificate: config.tlsCertificate, key: config.tlsKey, dataDir: config.dataDir, room: config.room,
                addresses: NetworkAddresses.current())
            tls = try TLSServing(identity: identity, room: config.room)
            transport = TransportPolicy(tls: true, allowPlain: config.allowPlain)
            logger.info(
                "TLS: \(identity.selfSigned ? "self-signed certificate" : "certificate") \(identity.source), fingerprint \(identity.fingerprint.hex)\(config.allowPlain ? "; plain connections allowed" : "")"
            )
        } catch let f as TLSIdentity.Failure {
            throw DisplaySelection.Failure(description: f.description)
        }
    }

    /// The render workers' limits: `render_memory_mb` of address space, and CPU seconds a
    /// page may use (a backstop behind the wall-clock budget, for a service that stopped
    /// watching).
    static func renderLimits(_ config: Config) -> RenderWorker.Limits {
        RenderWorker.Limits(memoryBytes: config.renderMemoryMB << 20, cpuSeconds: Int(config.renderBudget * 2) + 2)
    }

    /// This process's executable when it is lecternd (the appliance), else a lecternd in
    /// the same folder (a test bundle or a bench in .build/debug or .build/release).
    static func renderWorkerExecutable() -> String? {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        if (exe as NSString).lastPathComponent == "lecternd" { return "/proc/self/exe" }
        let sibling = (exe as NSString).deletingLastPathComponent + "/lecternd"
        return FileManager.default.isExecutableFile(atPath: sibling) ? sibling : nil
    }

    /// The connection caps of `config` (docs/config.md).
    static func connectionLimits(_ config: Config) -> ConnectionGate.Limits {
        ConnectionGate.Limits(
            total: config.maxConnections, perAddress: config.maxConnectionsPerAddress,
            reservedForDevices: min(config.connectionsReservedForDevices, config.maxConnections - 1))
    }

    /// Connections open now on both ports, of which registered devices (tests, the bench).
    public var connectionCounts: (open: Int, registered: Int) {
        guard let c = admission?.counts else { return (0, 0) }
        return (c.open, c.registered)
    }

    /// The frame on the output now (tests and the screenshot command use the protocol).
    public var onScreen: Frame { stage.screenshot() }

    /// A display event: the kernel's hotplug uevent (or a test that pulled the virtual
    /// display's cable). Posted to the display loop, never waited for: the output looks
    /// again, the slide is drawn again if a display came back, and every device hears of
    /// the output's state (`Stage.onOutputChanged`).
    public func displayChanged() {
        do { try stage.displayChanged() } catch { logger.error("display: \(error)") }
    }

    func reportOutput() {
        guard let room else { return }
        let status = stage.outputStatus
        room.loop.execute { room.feed(.outputChanged(status)) }
    }

    /// Waits until the saved presentation state is on disk (tests).
    func flushState() { room.stateWriter?.flush() }
}
