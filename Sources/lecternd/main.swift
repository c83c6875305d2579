import ArgumentParser
import Foundation
import LecternCore
import LecternService
import Logging

struct Lecternd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lecternd",
        abstract: "Lectern: the meeting-room projector service.")

    @Option(help: "The config file.") var config = "/etc/lectern/lectern.toml"
    @Flag(help: "Validate the config file, print every problem with its line, and exit.") var checkConfig = false
    @Option(help: "auto, kms or virtual (auto: KMS when a display is connected, else the virtual display).")
    var display: String = "auto"
    @Option(help: "Output mode WxH[@R] (default: the display's preferred mode; 1920x1080@60 for the virtual display).")
    var mode: String?
    @Option(help: "The wire protocol's TCP port.") var port: Int?
    @Option(help: "Where uploads and state live.") var dataDir: String?
    @Option(help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "info"
    @Option(help: "The room name (overrides the config).") var room: String?
    @Option(name: .customLong("preload"), help: "Add this file to the store at start (repeatable).")
    var preload: [String] = []

    func run() throws {
        let level = Logger.Level(rawValue: logLevel.lowercased()) ?? .info
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
        var options = Service.Options()
        guard let d = DisplayChoice(rawValue: display) else { fail("--display must be auto, kms or virtual, not '\(display)'") }
        options.display = d
        if let mode {
            guard let m = DisplayMode(parsing: mode) else { fail("--mode must look like 1920x1080 or 1920x1080@60, not '\(mode)'") }
            options.mode = m
        }
        if let port {
            guard (1...65535).contains(port) else { fail("--port must be 1–65535, not \(port)") }
            options.port = port
        }
        if let room { options.room = room }
        options.dataDir = dataDir ?? options.dataDir
        options.preload = preload
        let service = Service(options: options)
        do { try service.start() } catch { fail("\(error)") }
        dispatchMain()
    }

    func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("lecternd: \(message)\n".utf8))
        Foundation.exit(1)
    }
}

Lecternd.main()
