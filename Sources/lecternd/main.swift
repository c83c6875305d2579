import ArgumentParser
import Foundation
import LecternModel
import LecternSystem
import LecternDisplay
import LecternPipeline
import LecternPhotos
import LecternService
import LecternShare
import Logging

struct Lecternd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lecternd",
        abstract: "Lectern: the meeting-room projector service.")

    @Option(help: "The config file.") var config = "/etc/lectern/lectern.toml"
    @Flag(help: "Validate the config file and its drop-ins (lectern.d/*.toml beside it), print every problem with its file and line, and exit.") var checkConfig = false
    @Option(help: "auto, kms or virtual (auto: KMS when a display is connected, else the virtual display).")
    var display: String?
    @Option(help: "Output mode WxH[@R] (default: the display's preferred mode; 1920x1080@60 for the virtual display).")
    var mode: String?
    @Option(help: "The wire protocol's TCP port (0: any free port, printed at start).") var port: Int?
    @Option(help: "Where uploads and state live.") var dataDir: String?
    @Option(help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "info"
    @Option(help: "The room name (overrides the config).") var room: String?
    @Option(help: "The address to listen on.") var host = "0.0.0.0"
    @Option(name: .customLong("preload"), help: "Add this file to the store at start (repeatable).")
    var preload: [String] = []
    // The service starts its render workers as `lecternd --render-worker` (RenderWorker):
    // not for admins, so not in --help.
    @Flag(help: .hidden) var renderWorker = false
    @Option(help: .hidden) var renderMemoryMb = 192
    @Option(help: .hidden) var renderCpuSeconds = 10
    // The meeting record's worker (RecordMaker): `lecternd --record-worker <out.pdf>`.
    @Option(help: .hidden) var recordWorker: String?
    // A live share's decoder (ShareDecoderProcess): `lecternd --share-decoder`.
    @Flag(help: .hidden) var shareDecoder = false
    @Option(help: .hidden) var shareMemoryMb = 256
    @Option(help: .hidden) var shareCpuSeconds = 4
    @Option(help: .hidden) var shareMaxSide = 1920
    @Option(help: .hidden) var shareMaxPixels = 1920 * 1200

    func run() throws {
        if renderWorker { RenderWorkerMain.run(memoryMB: renderMemoryMb, cpuSeconds: renderCpuSeconds) }
        if shareDecoder {
            ShareDecoderMain.run(memoryMB: shareMemoryMb, cpuSeconds: shareCpuSeconds, maxSide: shareMaxSide, maxPixels: shareMaxPixels)
        }
        if let recordWorker { RecordWorkerMain.run(output: recordWorker, memoryMB: renderMemoryMb, cpuSeconds: renderCpuSeconds) }
        let level = Logger.Level(rawValue: logLevel.lowercased()) ?? .info
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
        let logger = Logger(label: "lecternd")
        let loaded: ConfigFile.Result
        do { loaded = try ConfigFile.load(path: config) } catch let e as ConfigFile.Invalid {
            // 78 (EX_CONFIG): systemd's RestartPreventExitStatus stops a restart loop on it.
            for w in e.warnings { FileHandle.standardError.write(Data("lecternd: warning: \(w)\n".utf8)) }
            FileHandle.standardError.write(Data("lecternd: \(e.description)\n".utf8))
            Foundation.exit(ConfigFile.invalidExitStatus)
        } catch {
            fail("\(error)")
        }
        for w in loaded.warnings { logger.warning("\(w)") }
        if checkConfig {
            print("\(config): OK")
            for d in loaded.dropIns { print("  merged over it: \(d)") }
            return
        }
        var c = loaded.config
        if let display {
            guard let choice = DisplayChoice(rawValue: display) else { fail("--display must be auto, kms or virtual, not '\(display)'") }
            c.display = choice
        }
        if let mode {
            guard let wanted = RequestedMode(parsing: mode) else { fail("--mode must look like 1920x1080 or 1920x1080@60, not '\(mode)'") }
            c.mode = wanted
        }
        if let port {
            guard (0...65535).contains(port) else { fail("--port must be 0–65535, not \(port)") }
            c.port = port
        }
        if let room { c.room = room }
        if let dataDir { c.dataDir = dataDir }
        var options = Service.Options(config: c)
        options.host = host
        options.preload = preload
        let service: Service
        do { service = try Service.start(options: options, logger: logger) } catch { fail("\(error)") }
        logger.info("start to first frame on the output: \(Int(((MonotonicClock.now() - processStart) * 1000).rounded())) ms")
        print("lecternd: listening on port \(service.port)")
        fflush(nil)

        // systemd: ready once the first frame is on the output (start() returned), and the
        // watchdog kept alive by presents that really reach the output.
        let notify = SystemdNotify()
        notify.ready(status: "showing \(c.room) on \(service.output.name), port \(service.port)")
        service.startHeartbeat(interval: notify.watchdogInterval ?? 5) { notify.watchdog() }

        // SIGHUP reloads the config; SIGTERM/SIGINT stop cleanly (the display left as found).
        let path = config
        signal(SIGHUP, SIG_IGN); signal(SIGTERM, SIG_IGN); signal(SIGINT, SIG_IGN)
        let hup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .main)
        hup.setEventHandler {
            notify.reloading()
            _ = service.reload(configPath: path)
            notify.ready()
        }
        hup.resume()
        var stops: [DispatchSourceSignal] = []
        for sig in [SIGTERM, SIGINT] {
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .main)
            s.setEventHandler {
                notify.stopping()
                logger.info("stopping")
                service.stop()
                Foundation.exit(0)
            }
            s.resume()
            stops.append(s)
        }
        withExtendedLifetime((hup, stops)) { dispatchMain() }
    }

    func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("lecternd: \(message)\n".utf8))
        Foundation.exit(1)
    }
}

let processStart = MonotonicClock.now()
// The service's deck probe (`DeckProbe`): a child that opens an upload within its budgets
// before the service does; not for admins, so not an option in --help.
DeckProbe.runIfAsked(CommandLine.arguments)
// The child that makes photos into a deck (`PhotoDeck`), within its budgets.
PhotoDeckChild.runIfAsked(CommandLine.arguments)
Lecternd.main()
