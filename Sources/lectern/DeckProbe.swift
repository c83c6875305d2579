import Foundation
import Glibc
import LecternCore
import LecternPipeline
import LecternRender

/// What `lectern render` needs of a file before it draws a page (its page count and the
/// notes layout the service would pick, §20.3), read in a child process
/// (`lectern --probe-deck FILE`) with the render worker's limits: opening a hostile file
/// can take poppler gigabytes (a 500-byte cross-reference table claiming 33 million
/// objects: 1.3 GB, and an abort when refused) or minutes, which must cost the child, not
/// the command.
enum DeckProbe {
    struct Facts: Equatable {
        var pageCount: Int
        var layout: NotesLayout
    }

    /// Reads `path` in a child limited to `memoryMB` beyond its start and `seconds`.
    static func facts(of path: String, executable: String, memoryMB: Int, seconds: Double) throws -> Facts {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = ["--probe-deck", path, "--render-memory-mb", String(memoryMB)]
        let out = Pipe()
        child.standardOutput = out
        child.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try child.run()
        let deadline = MonotonicClock.now() + seconds + 1   // + its start
        while child.isRunning, MonotonicClock.now() < deadline { usleep(10_000) }
        if child.isRunning {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            throw ContentError.tooSlow(page: 1, seconds: seconds)
        }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let fields = text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        if child.terminationStatus == 0, fields.count == 3, fields[0] == "ok", let n = Int(fields[1]),
            let layout = NotesLayout(rawValue: fields[2].trimmingCharacters(in: .newlines))
        {
            return Facts(pageCount: n, layout: layout)
        }
        if fields.count == 3, fields[0] == "error" {
            throw CLIError(code: fields[1], message: fields[2].trimmingCharacters(in: .newlines))
        }
        // Killed by its memory limit (poppler aborts when refused) or a crash on the file.
        throw ContentError.overLimits(page: 1, megabytes: memoryMB)
    }

    /// The child's side: never returns when asked for.
    static func runIfAsked(_ arguments: [String]) {
        guard arguments.count > 2, arguments[1] == "--probe-deck" else { return }
        let memoryMB = arguments.firstIndex(of: "--render-memory-mb").flatMap { i in i + 1 < arguments.count ? Int(arguments[i + 1]) : nil } ?? 192
        RenderWorkerMain.confine(keeping: 2, memoryMB: memoryMB, what: "deck probe")
        var line: String
        do {
            let doc = try PDFDocument(path: arguments[2])
            line = "ok\t\(doc.pageCount)\t\(doc.detectedNotesLayout().rawValue)\n"
        } catch let e as ContentError {
            line = "error\t\(e.code)\t\(e.description.replacingOccurrences(of: "\n", with: " "))\n"
        } catch {
            line = "error\tdamaged\t\(error)\n"
        }
        FileHandle.standardOutput.write(Data(line.utf8))
        exit(0)
    }
}
