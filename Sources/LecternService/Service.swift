import Foundation
import LecternCore
import LecternRender
import Logging

/// `lecternd`: wires the output, the frame pipeline, the content store and the network
/// together. Start it with `start()`; everything after that runs on its own threads.
public final class Service: @unchecked Sendable {
    public struct Options: Sendable {
        public var room = "Lectern"
        public var port = 7420
        public var display: DisplayChoice = .auto
        public var mode: DisplayMode?
        public var background: RGB = .black
        public var overscanPercent = 0.0
        public var dataDir = "/var/lib/lectern"
        /// Files added to the store at start (the demo deck of `make run`).
        public var preload: [String] = []
        /// Bytes of finished page frames kept for instant page turns.
        public var pageCacheBytes = 96 << 20
        public init() {}
    }

    public let options: Options
    public let logger: Logger
    public private(set) var output: Output!
    public private(set) var stage: Stage!
    public private(set) var store: ContentStore!

    public init(options: Options, logger: Logger = Logger(label: "lecternd")) {
        self.options = options
        self.logger = logger
    }

    /// Opens the output and shows the idle screen. Throws with a message for the admin when
    /// something stops the service from starting.
    public func start() throws {
        let (choice, why) = DisplaySelection.resolve(options.display)
        logger.info("display: \(why)")
        output = try DisplaySelection.open(choice, mode: options.mode)
        logger.info("output: \(output.name)")
        store = try ContentStore(dataDir: options.dataDir)
        for path in options.preload {
            let item = try store.add(fileAt: path)
            logger.info("preloaded \(item.name) as \(item.id) (\(item.pages) pages)")
        }
        let mode = output.mode
        let settings = Compositor.Settings(width: mode.width, height: mode.height,
                                           background: options.background,
                                           overscanPercent: options.overscanPercent)
        let compositor = Compositor(settings: settings, idle: idleScreen(),
                                    cacheBytes: options.pageCacheBytes,
                                    documents: { [store] id in try store!.document(id) })
        stage = Stage(output: output, compositor: compositor)
        try stage.show(.idle)
        logger.info("first frame on \(output.name): idle screen for \(options.room)")
    }

    func idleScreen() -> IdleScreen {
        IdleScreen(room: options.room, addresses: NetworkAddresses.current(), port: options.port,
                   background: options.background)
    }
}
