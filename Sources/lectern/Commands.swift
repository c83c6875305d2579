import ArgumentParser
import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the room: floor, queue, screen, devices.")
    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Print the state as JSON (docs/protocol.md, State).") var json = false

    func run() throws {
        let s = try withConnection(connection) { try $0.state() }
        if json { print(String(decoding: s.jsonBytes(), as: UTF8.self)); return }
        print(describe(s))
    }
}

func describe(_ s: Snapshot) -> String {
    func who(_ id: DeviceID?) -> String {
        guard let id else { return "nobody" }
        return s.devices.first { $0.id == id }.map { "\($0.name) (\(id))" } ?? "\(id)"
    }
    var lines = [
        "room: \(s.room)  floor: \(s.floorMode.rawValue)\(s.floor.doNotDisturb ? "  do-not-disturb" : "")",
        "holder: \(who(s.floor.holder))" + (s.floor.delegate.map { "  handed over to \(who($0))" } ?? ""),
    ]
    if !s.floor.queue.isEmpty { lines.append("queue: " + s.floor.queue.map { who($0) }.joined(separator: ", ")) }
    if let c = s.screen.content {
        lines.append("screen: \(c.name) page \(s.screen.page)/\(s.screen.pageCount)\(s.screen.blank == .none ? "" : " (blank \(s.screen.blank.rawValue))")")
        if let slide = s.console?.slide {
            lines.append("slide: \(slide.label) (\(slide.index) of \(slide.count))\(slide.steps > 1 ? ", step \(slide.step) of \(slide.steps)" : "")")
        }
    } else {
        lines.append("screen: idle\(s.screen.blank == .none ? "" : " (blank \(s.screen.blank.rawValue))")")
    }
    if let l = s.layout, l.kind != .full { lines += describePanes(s) }
    if let ink = s.ink, ink.strokes > 0 || !ink.allowed.isEmpty {
        let pages = ink.pages.map { "\($0.content.prefix(8)) p\($0.page): \($0.strokes)" }.joined(separator: ", ")
        lines.append(
            "ink: \(ink.strokes) stroke\(ink.strokes == 1 ? "" : "s")\(pages.isEmpty ? "" : " (\(pages))")"
                + (ink.allowed.isEmpty ? "" : "  may draw: " + ink.allowed.map { who($0) }.joined(separator: ", ")))
    }
    if let console = s.console { lines.append(describeTimer(console.timer)) }
    let o = s.output
    lines.append(o.connected ? "output: \(o.mode) connected" : "output: DISCONNECTED (the projector is unplugged or off; \(o.mode) before)")
    if s.transitions.fallbackFadeMs > 0 { lines.append("transitions: the deck's own, else a \(s.transitions.fallbackFadeMs) ms cross-fade") }
    lines.append("devices: " + s.devices.map { "\($0.id) \($0.name) [\($0.role)\($0.connected ? "" : ", away")]" }.joined(separator: "; "))
    return lines.joined(separator: "\n")
}

struct UploadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Upload files (PDF, clips, office documents, photos and images); prints each content id.",
        discussion: "Two or more photos or images given together become one deck, in the order given: its id is printed where the first of them was.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The files.") var files: [String]

    func run() throws {
        let ids = try withConnection(connection) { try UploadFiles.upload(files, $0, showProgress: true) }
        for id in ids { print(id.hex) }
    }

    static func upload(_ file: String, _ c: LecternConnection, showProgress: Bool, firstPage: Bool = false) throws -> UploadStored {
        guard FileManager.default.isReadableFile(atPath: file) else {
            throw CLIError(code: "argument", message: "Can't read \(file).", exitCode: 1)
        }
        // Too big for the appliance: said before the file is read (§30.10), as the server would.
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.uint64Value ?? 0
        // The state pushed after register may not have been read yet: asked for then.
        let limits = (c.latestState ?? (try? c.state()))?.uploads
        if let limit = limits, limit.maxFileBytes > 0, size > limit.maxFileBytes {
            throw CLIError(.server(.fileTooLarge(limit: limit.maxFileBytes, text: limit.maxFileText)))
        }
        let tty = showProgress && isatty(STDERR_FILENO) == 1
        let start = Date()
        let name = (file as NSString).lastPathComponent
        var said = ""
        let stored = try c.upload(
            path: file,
            progress: { sent, total in
                guard tty, total > 0 else { return }
                let f = Double(sent) / Double(total)
                let bar = String(repeating: "#", count: Int(f * 30)) + String(repeating: " ", count: 30 - Int(f * 30))
                let rate = Double(sent) / max(0.001, Date().timeIntervalSince(start)) / 1e6
                FileHandle.standardError.write(
                    Data(
                        String(
                            format: "\r[%@] %3d%%  %.1f/%.1f MB  %.1f MB/s", bar, Int(f * 100),
                            Double(sent) / 1e6, Double(total) / 1e6, rate
                        ).utf8))
            },
            converting: { p in
                // Always said (a conversion takes seconds): one line per change, or one line
                // redrawn on a terminal (docs/protocol.md §30.3).
                let line = ConversionLine.text(p, name: name)
                guard line != said else { return }
                said = line
                FileHandle.standardError.write(Data((isatty(STDERR_FILENO) == 1 ? "\r\u{1B}[K" + line : line + "\n").utf8))
            }, firstPage: firstPage)
        if tty || (!said.isEmpty && isatty(STDERR_FILENO) == 1) { FileHandle.standardError.write(Data("\n".utf8)) }
        return stored
    }
}

/// What the CLI says of a conversion: "Converting deck.pptx · slide 12 of 30".
enum ConversionLine {
    static func text(_ p: ConversionProgress, name: String) -> String {
        switch p.stage {
        case .queued:
            return "Converting \(name) (\(p.format)) · stored, waiting\(p.ahead > 0 ? " (\(p.ahead) ahead)" : "")"
        case .converting:
            let unit =
                ["pptx", "ppt", "odp", "key"].contains(p.format) ? "slide" : ImageFormat(rawValue: p.format) != nil || p.format == ImageSet.format ? "image" : "page"
            if p.total > 0 { return "Converting \(name) · \(unit) \(p.done) of \(p.total)" }
            return "Converting \(name) · \(p.elapsedMs / 1000) s of at most \(p.budgetMs / 1000) s"
        case .firstPage:
            let unit = ["pptx", "ppt", "odp", "key"].contains(p.format) ? "slide" : "page"
            // Its later progress keeps stage 3: the count goes on, page 1 still said.
            if p.done > 1, p.total > 0 { return "Converting \(name) · \(unit) \(p.done) of \(p.total) · \(unit) 1 ready" }
            return "Converting \(name) · \(unit) 1 ready, shown while the rest converts" + (p.total > 1 ? " (\(p.total) in all)" : "")
        }
    }
}

struct PresentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present",
        abstract: "Show a deck: a file (uploaded first: a PDF, an office document, a photo), a content id, or several photos as one deck.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "A file or a content id; or several photos or images, which become one deck in the order given.") var targets: [String]
    @Option(help: "The page to start at.") var page: UInt32 = 1

    func validate() throws {
        if targets.isEmpty { throw ValidationError("Give a file or a content id.") }
        if targets.count > 1, !targets.allSatisfy(UploadFiles.isImage) {
            throw ValidationError("Several files can be presented together only when they are all photos or images (they become one deck).")
        }
    }

    func run() throws {
        try withConnection(connection) { c in
            // A document converted on the appliance goes up once its first page is ready.
            let content =
                targets.count > 1
                ? try UploadFiles.upload(targets, c, showProgress: false)[0] : try resolveContent(targets[0], c, firstPage: page <= 1)
            try takeFloorIfOpen(c, role: connection.role)
            try c.present(content, page: page)
        }
    }
}

struct SignalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "signal", shouldDisplay: false)
    static func send(_ options: ConnectionOptions, _ s: ControlSignal) throws {
        try withConnection(options) { try $0.control(s) }
    }
}

struct NextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "next", abstract: "Next page.")
    @OptionGroup var connection: ConnectionOptions
    func run() throws { try SignalCommand.send(connection, .next) }
}

struct PrevCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "prev", abstract: "Previous page.")
    @OptionGroup var connection: ConnectionOptions
    func run() throws { try SignalCommand.send(connection, .prev) }
}

struct GotoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "goto", abstract: "Go to page N.")
    @OptionGroup var connection: ConnectionOptions
    @Argument var page: UInt32
    func run() throws { try SignalCommand.send(connection, .goto(page: page)) }
}

struct BlankCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "blank", abstract: "Blank the screen (black, or white).")
    @OptionGroup var connection: ConnectionOptions
    @Flag var white = false
    func run() throws { try SignalCommand.send(connection, .blank(white: white)) }
}

struct UnblankCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unblank", abstract: "Show the content again.")
    @OptionGroup var connection: ConnectionOptions
    func run() throws { try SignalCommand.send(connection, .unblank) }
}

struct ClearCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clear", abstract: "Back to the idle screen.")
    @OptionGroup var connection: ConnectionOptions
    func run() throws { try withConnection(connection) { _ = try $0.request(.clear) } }
}

struct FloorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floor", abstract: "request | release | grant ID | withdraw [ID] | reject ID | handover ID | takeback | return | dnd on|off")
    @OptionGroup var connection: ConnectionOptions
    @Argument var action: String
    @Argument var argument: String?
    @Flag(help: "With request: stay connected until the floor is granted.") var wait = false

    func run() throws {
        try withConnection(connection) { c in
            func id() throws -> DeviceID {
                guard let a = argument, let v = UInt8(a), v >= 1, v <= 254 else {
                    throw CLIError(code: "argument", message: "\(action) needs a device id (1–254).", exitCode: 1)
                }
                return v
            }
            switch action {
            case "request":
                switch try c.requestFloor() {
                case .holder: print("you have the floor")
                case .queued(let p):
                    print("queued, position \(p)")
                    if wait {
                        let me = c.deviceID
                        _ = try c.waitForState(timeout: 24 * 3600) { $0.floor.holder == me }
                        print("you have the floor")
                    }
                }
            case "release": _ = try c.request(.floorRelease)
            case "grant": try c.moderate(.grant, target: id())
            case "withdraw": try c.moderate(.withdraw, target: argument == nil ? 0 : id())
            case "reject": try c.moderate(.reject, target: id())
            case "handover": try c.control(.handOver(to: id()))
            case "takeback": try c.control(.takeBack)
            case "return": try c.control(.returnFloor)
            case "dnd":
                guard let a = argument, a == "on" || a == "off" else {
                    throw CLIError(code: "argument", message: "floor dnd takes on or off.", exitCode: 1)
                }
                try c.moderate(a == "on" ? .dndOn : .dndOff, target: 0)
            default:
                throw CLIError(code: "argument", message: "Unknown floor action \(action).", exitCode: 1)
            }
        }
    }
}

struct KickCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "kick", abstract: "Remove a device from the room (moderator).")
    @OptionGroup var connection: ConnectionOptions
    @Argument var id: UInt8
    func run() throws { try withConnection(connection) { try $0.moderate(.kick, target: id) } }
}

struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "play", abstract: "Play a clip (a file, uploaded first, or a content id).")
    @OptionGroup var connection: ConnectionOptions
    @Argument var target: String
    @Flag var loop = false
    func run() throws {
        try withConnection(connection) { c in
            let content = try resolveContent(target, c)
            try takeFloorIfOpen(c, role: connection.role)
            _ = try c.request(.clipPlay(content: content, loop: loop))
        }
    }
}

struct PauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause the clip.")
    @OptionGroup var connection: ConnectionOptions
    func run() throws { try withConnection(connection) { _ = try $0.request(.clipPause) } }
}

struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume the clip.")
    @OptionGroup var connection: ConnectionOptions
    func run() throws { try withConnection(connection) { _ = try $0.request(.clipResume) } }
}

struct SeekCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "seek", abstract: "Seek the clip to SECONDS.")
    @OptionGroup var connection: ConnectionOptions
    @Argument var seconds: Double
    func run() throws {
        guard seconds >= 0, seconds < 4_000_000 else { throw ValidationError("seconds must be 0 or more") }
        try withConnection(connection) { _ = try $0.request(.clipSeek(positionMs: UInt32(seconds * 1000))) }
    }
}

struct StopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop the clip.")
    @OptionGroup var connection: ConnectionOptions
    func run() throws { try withConnection(connection) { _ = try $0.request(.clipStop) } }
}

struct ScreenshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "screenshot", abstract: "Save the frame on the output now, exactly, as PNG.")
    @OptionGroup var connection: ConnectionOptions
    @Argument var output: String
    @Option(help: "Scale down to at most this width in pixels (0: the output's, exactly).") var width: UInt16 = 0
    @Option(help: "Scale down to at most this height in pixels (0: the output's, exactly).") var height: UInt16 = 0
    func run() throws {
        let png = try withConnection(connection) { try $0.screenshot(maxWidth: width, maxHeight: height) }
        try png.write(to: URL(fileURLWithPath: output), options: .atomic)
    }
}

struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Save a page of a PDF as the output would show it, small, as PNG (without showing it).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "A PDF file (uploaded first) or a content id.") var target: String
    @Argument(help: "Where to write the PNG.") var output: String
    @Option(help: "The page.") var page: UInt32 = 1
    @Option(help: "Largest width in pixels (0: the output's).") var width: UInt16 = 480
    @Option(help: "Largest height in pixels (0: the output's).") var height: UInt16 = 0
    func run() throws {
        let png = try withConnection(connection) { c in
            try c.pagePreview(resolveContent(target, c), page: page, maxWidth: width, maxHeight: height)
        }
        try png.write(to: URL(fileURLWithPath: output), options: .atomic)
    }
}

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "watch", abstract: "Print every state change until interrupted.")
    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "One JSON object a line.") var json = false
    func run() throws {
        try withConnection(connection) { c in
            var last: UInt64 = 0
            var epoch: String? = nil
            while c.isOpen {
                guard let m = c.nextEvent(timeout: 3600) else { continue }
                switch m {
                case .state(let s) where s.revision > last || s.epoch != epoch:
                    // Pushes arrive in order on one connection; the epoch check is the rule of §14.1.
                    (last, epoch) = (s.revision, s.epoch)
                    print(json ? String(decoding: s.jsonBytes(), as: UTF8.self) : describe(s) + "\n")
                case .floorGranted(let reason, let by):
                    if !json { print("floor granted to you (\(reason)) by \(by)") }
                case .floorWithdrawn(let reason, let by):
                    if !json { print("floor withdrawn from you (\(reason)) by \(by)") }
                case .error(let e) where !e.closesConnection:
                    // A notice (floorExpired, §9.6): the connection goes on (C49: the flag decides).
                    FileHandle.standardError.write(Data((e.message + "\n").utf8))
                case .error(let e):
                    throw LecternConnection.ClientError.server(e)
                default: break
                }
                fflush(nil)
            }
        }
    }
}

struct HashPasscodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash-passcode",
        abstract: "Read a passcode on stdin; print the salted hash the config file accepts.")
    func run() throws {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw CLIError(code: "argument", message: "No passcode on standard input.", exitCode: 1)
        }
        print(PasscodeHash.make(passcode: line))
    }
}
