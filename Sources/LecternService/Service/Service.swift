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
import NIOSSL
import Synchronization

/// `lecternd`: the output, the frame pipeline, the content store and the network, wired
/// together. `Service.start(options:logger:)` (Service+Start.swift) makes the parts in order
/// and returns the service whole; everything after that runs on its own threads.
public final class Service: Sendable {
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
    /// The output the stage owns.
    public var output: Output { stage.output }
    public let stage: Stage
    public let store: ContentStore
    /// The TCP port the protocol listens on (the bound one when the config says 0).
    public let port: Int
    let group: MultiThreadedEventLoopGroup
    let server: Server
    let hotplug: HotplugMonitor?
    /// The render worker processes (nil: pages drawn in-process, see `renderWorkerExecutable`).
    public let workers: RenderWorkers?
    let room: Room
    /// What changes after the start: the config (a reload), the listeners that bind late
    /// or not at all (the web remote, `/metrics`), the watchdog's heartbeat, and the stop.
    private struct Running {
        var config: Config
        var webServer: WebRemoteServer?
        var httpPort: Int?
        var metricsServer: MetricsServer?
        var metricsPort: Int?
        var heartbeat: Heartbeat?
        var stopped = false
    }
    private let running: Mutex<Running>
    /// `/metrics`'s listener (Service+Metrics.swift), when configured and bound.
    var metricsServer: MetricsServer? {
        get { running.withLock { $0.metricsServer } }
        set { running.withLock { $0.metricsServer = newValue } }
    }
    /// The port `/metrics` listens on (the bound one for port 0); nil when off.
    public internal(set) var metricsPort: Int? {
        get { running.withLock { $0.metricsPort } }
        set { running.withLock { $0.metricsPort = newValue } }
    }
    /// The certificate both ports present (nil: `tls = false`), its server context, and
    /// what a connection's first byte makes of it (TLSIdentity.swift, TransportSniffer.swift).
    public var tlsIdentity: TLSIdentity? { tls?.current.identity }
    /// Swapped by a reload (`TLSServing`): new connections get the certificate in force.
    let tls: TLSServing?
    let transport: TransportPolicy
    /// Both listeners' connections, counted together (`ConnectionGate`).
    let admission: Admission
    /// Idle-screen changes made from the room's loop, shown in order (`updateIdleScreen`).
    let idleUpdates: DispatchQueue

    /// The parts `Service.start(options:logger:)` made, in the order it made them.
    struct Parts {
        var store: ContentStore
        var tls: TLSServing?
        var transport: TransportPolicy
        var workers: RenderWorkers?
        var stage: Stage
        var hotplug: HotplugMonitor?
        var group: MultiThreadedEventLoopGroup
        var room: Room
        var admission: Admission
        var server: Server
        var port: Int
        var idleUpdates: DispatchQueue
    }

    init(options: Options, logger: Logger, parts: Parts) {
        self.options = options
        running = Mutex(Running(config: options.config))
        self.logger = logger
        store = parts.store
        tls = parts.tls
        transport = parts.transport
        workers = parts.workers
        stage = parts.stage
        hotplug = parts.hotplug
        group = parts.group
        room = parts.room
        admission = parts.admission
        server = parts.server
        port = parts.port
        idleUpdates = parts.idleUpdates
    }

    /// The config in force (after SIGHUP reloads).
    public internal(set) var config: Config {
        get { running.withLock { $0.config } }
        set { running.withLock { $0.config = newValue } }
    }

    /// The port the web remote listens on (the bound one when the config says 0); nil when
    /// it is off or not listening (yet).
    public var httpPort: Int? { running.withLock { $0.httpPort } }

    func setWebRemote(_ server: WebRemoteServer, port: Int) {
        running.withLock {
            $0.webServer = server
            $0.httpPort = port
        }
        // The idle screen shows the address a phone opens, as text and as a QR code.
        try? stage.setIdle(idleScreen(port: self.port))
    }

    var isStopped: Bool { running.withLock { $0.stopped } }

    public func stop() {
        // Once: a second stop would wait on channels of an event loop group already gone.
        let (first, heartbeat, web) = running.withLock { r in
            defer { r.stopped = true }
            return (!r.stopped, r.heartbeat, r.webServer)
        }
        guard first else { return }
        heartbeat?.cancel()
        web?.stop()
        metricsServer?.stop()
        server.stop()
        room.stop()
        try? group.syncShutdownGracefully()
        room.stateWriter?.flush()
        workers?.stop()
    }

    /// Starts the watchdog's `Heartbeat`: `alive` (systemd's WATCHDOG=1) is called every
    /// `interval` seconds while the stage still presents.
    public func startHeartbeat(interval: Double, alive: @escaping @Sendable () -> Void) {
        let (stage, logger) = (self.stage, self.logger)
        // Made inside the lock: a Heartbeat (its timer) isn't Sendable, and from here on only
        // the lock's holder touches it.
        running.withLock { $0.heartbeat = Heartbeat(stage: stage, interval: interval, logger: logger, alive: alive) }
    }
}

extension Service {
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
        let c = admission.counts
        return (c.open, c.registered)
    }

    /// The frame on the output now (tests and the screenshot command use the protocol).
    public var onScreen: Frame { stage.screenshot() }

    /// A display event: the kernel's hotplug uevent (or a test that pulled the virtual
    /// display's cable). Posted to the display loop, never waited for: the output looks
    /// again, the slide is drawn again if a display came back, and every device hears of
    /// the output's state (`Stage.onOutputChanged`).
    public func displayChanged() { Self.displayChanged(stage, logger: logger) }

    static func displayChanged(_ stage: Stage, logger: Logger) {
        do { try stage.displayChanged() } catch { logger.error("display: \(error)") }
    }

    /// Tells the room the output's state now (posted to its loop, never waited for).
    static func reportOutput(_ stage: Stage, to room: Room) {
        let status = stage.outputStatus
        room.loop.execute { room.feed(.outputChanged(status)) }
    }

    /// Waits until the saved presentation state is on disk (tests).
    func flushState() { room.stateWriter?.flush() }
}
