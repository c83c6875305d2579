import ArgumentParser
import Foundation
import LecternClient
import LecternModel
import LecternProtocol

// The presenter console from the command line (docs/protocol.md §20): notes, the notes
// file, the talk timer.

/// The deck on screen, for commands whose content is optional.
private func contentOnScreen(_ c: LecternConnection) throws -> (ContentID, Snapshot) {
    let s = try c.state()
    guard let content = s.screen.content, content.kind == .pdf else {
        throw CLIError(code: "argument", message: "No PDF is on screen — name one with --content.", exitCode: 1)
    }
    return (content.id, s)
}

struct NotesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notes",
        abstract: "Print the speaker notes of a page (the page on screen unless --page), or of every page (--all).",
        discussion: "Notes are only for whoever has the floor and the moderator.")
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "The page (1-based).") var page: UInt32?
    @Flag(help: "Every page.") var all = false
    @Option(help: "A PDF file or content id (default: the deck on screen).") var content: String?
    @Option(help: "Write the notes as a pdfpc file (every page) to this path.") var pdfpc: String?

    func run() throws {
        let reply: NotesReply = try withConnection(connection) { c in
            var id: ContentID
            var onScreen: Snapshot?
            if let content { id = try resolveContent(content, c) } else { (id, onScreen) = try contentOnScreen(c) }
            let p = all || pdfpc != nil ? 0 : (page ?? onScreen?.screen.page ?? 1)
            return try c.notes(id, page: p)
        }
        if let pdfpc {
            try Data(PdfpcFile.write(reply)).write(to: URL(fileURLWithPath: pdfpc))
            print("wrote \(pdfpc) (\(reply.pages.filter { $0.source == "typed" }.count) notes)")
            return
        }
        for p in reply.pages where all ? !p.text.isEmpty : true {
            print("— page \(p.page) (slide \(p.label))\(p.source == "none" ? "" : " [\(p.source)]")")
            print(p.text.isEmpty ? "(no notes)" : p.text)
        }
    }
}

struct NotesFileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notes-file", abstract: "Attach a pdfpc notes file (.pdfpc) to a deck (the deck on screen unless --content).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The .pdfpc file.") var file: String
    @Option(help: "A PDF file or content id (default: the deck on screen).") var content: String?

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CLIError(code: "argument", message: "Can't read \(file).", exitCode: 1)
        }
        try withConnection(connection) { c in
            let id = try content.map { try resolveContent($0, c) } ?? contentOnScreen(c).0
            _ = try c.request(.notesFile(content: id, file: Array(data)))
        }
    }
}

struct TimerCLICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timer", abstract: "The talk timer: start | pause | reset | set [--duration 20m | --end 14:30] [--warn MIN].")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "start, pause, reset or set.") var action: String
    @Option(help: "Count down from this length (20m, 90s, 1h30m; a bare number is minutes).") var duration: String?
    @Option(help: "Count down to this time of day (HH:MM, this device's time zone).") var end: String?
    @Option(help: "Warn this many minutes before the end.") var warn: UInt16?
    @Flag(help: "Count up (elapsed time) again.") var elapsed = false

    func run() throws {
        let a: TimerCommand.Action
        switch action {
        case "start": a = .start
        case "pause": a = .pause
        case "reset": a = .reset
        case "set": a = .set
        default: throw CLIError(code: "argument", message: "The timer action is start, pause, reset or set, not '\(action)'.", exitCode: 1)
        }
        var command = TimerCommand(action: a, warnMinutes: warn ?? 0xFFFF)
        if let duration {
            guard let ms = Self.parseDuration(duration) else {
                throw CLIError(code: "argument", message: "'\(duration)' is not a length like 20m, 90s or 1h30m.", exitCode: 1)
            }
            command.mode = .countdown
            command.value = ms
        } else if let end {
            guard let at = Self.nextTime(end, after: Date()) else {
                throw CLIError(code: "argument", message: "'\(end)' is not a time of day like 14:30.", exitCode: 1)
            }
            command.mode = .endTime
            command.value = UInt64(at.timeIntervalSince1970 * 1000)
        } else if elapsed {
            command.mode = .elapsed
        }
        try withConnection(connection) { c in
            _ = try c.request(.timer(command))
            print(describeTimer(try c.state().console?.timer))
        }
    }

    /// "20m", "90s", "1h30m", "1h", "20" (minutes) → ms.
    static func parseDuration(_ s: String) -> UInt64? {
        if let m = UInt64(s) { return m * 60_000 }
        var total: UInt64 = 0
        var number = ""
        var any = false
        for ch in s.lowercased() {
            if ch.isNumber { number.append(ch); continue }
            guard let n = UInt64(number) else { return nil }
            switch ch {
            case "h": total += n * 3_600_000
            case "m": total += n * 60_000
            case "s": total += n * 1000
            default: return nil
            }
            number = ""
            any = true
        }
        guard any, number.isEmpty, total > 0 else { return nil }
        return total
    }

    /// The next time the local clock shows "HH:MM".
    static func nextTime(_ s: String, after now: Date) -> Date? {
        let parts = s.split(separator: ":")
        guard parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]), (0..<24).contains(h), (0..<60).contains(m) else { return nil }
        return Calendar.current.nextDate(after: now, matching: DateComponents(hour: h, minute: m, second: 0), matchingPolicy: .nextTime)
    }
}

/// "timer: 12:34 left (of 20:00), running" and the like.
func describeTimer(_ t: TimerSnapshot?) -> String {
    guard let t else { return "timer: —" }
    func clock(_ ms: Int64) -> String {
        let s = abs(ms) / 1000
        let text = s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
        return (ms < 0 ? "-" : "") + text
    }
    var text: String
    switch t.mode {
    case .elapsed: text = "\(clock(Int64(t.elapsedMs))) elapsed"
    case .countdown: text = "\(clock(t.remainingMs ?? 0)) left of \(clock(Int64(t.durationMs ?? 0)))"
    case .endTime:
        let end = Date(timeIntervalSince1970: Double(t.endsAtMs ?? 0) / 1000)
        let f = DateFormatter()
        f.dateFormat = "HH:mm"
        text = "\(clock(t.remainingMs ?? 0)) left, ends at \(f.string(from: end))"
    }
    text += t.running ? ", running" : (t.elapsedMs == 0 ? ", not started" : ", paused")
    if t.warning { text += " — last \(t.warnMinutes) minutes" }
    return "timer: " + text
}
