import ArgumentParser
import Foundation
import LecternModel
import LecternPipeline
import LecternRender

/// `lectern render`: the service's frame pipeline, offline: the same split decision for a
/// beamer notes deck (§20.3), the same fitting, and the same bounds (the page is drawn in
/// a render worker, `lectern --render-worker`, with the service's memory and time limits).
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a page into an output frame (PNG) exactly as the service would show it.",
        discussion: """
            A beamer deck with notes on a second screen is drawn as its slide half, as the wall \
            shows it (--notes-layout whole draws the whole page). The page is drawn within the \
            service's limits (--budget seconds, --memory-mb MB, as render_budget and \
            render_memory_mb): past either, it is refused with the service's message and exit status 1.
            """)

    @Argument(help: "A PDF file.") var file: String
    @Option(help: "Page number, from 1.") var page = 1
    @Option(help: "Output mode WxH[@R].") var mode = "1920x1080"
    @Option(help: "Bar colour (#rrggbb or a name).") var background = "black"
    @Option(help: "Overscan safe-area margin, percent of each edge.") var overscan = 0.0
    @Option(help: "detect (as the service decides), whole, split (right), left, top or bottom.") var notesLayout = "detect"
    @Option(help: "Seconds the page may take to draw (the service's render_budget).") var budget = Config().renderBudget
    @Option(help: "MB of memory the page may use (the service's render_memory_mb).") var memoryMb = Config().renderMemoryMB
    @Option(name: .shortAndLong, help: "Where to write the PNG.") var output: String

    func run() throws {
        guard let m = DisplayMode(parsing: mode) else { throw ValidationError("--mode must look like 1920x1080, not '\(mode)'") }
        guard let bg = RGB(parsing: background) else { throw ValidationError("--background must be #rrggbb or a colour name, not '\(background)'") }
        guard (0...25).contains(overscan) else { throw ValidationError("--overscan must be 0–25 percent") }
        guard let chosen = NotesLayoutCommand.layout(notesLayout) else {
            throw ValidationError("--notes-layout is detect, whole, split, right, left, top or bottom, not '\(notesLayout)'")
        }
        guard budget > 0, budget <= 60 else { throw ValidationError("--budget must be more than 0 and at most 60 seconds") }
        guard (16...4096).contains(memoryMb) else { throw ValidationError("--memory-mb must be 16–4096") }
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            throw CLIError(code: "render", message: "Can't find this program to start its render worker.")
        }
        let settings = Compositor.Settings(width: m.width, height: m.height, background: bg, overscanPercent: overscan)
        let worker = RenderWorker(
            name: "render", executable: executable,
            limits: RenderWorker.Limits(memoryBytes: memoryMb << 20, cpuSeconds: Int(budget * 2) + 2))
        defer { worker.stop() }
        do {
            // The file is read for its pages and layout in a child with the same limits
            // (`DeckProbe`), and the page drawn by the worker.
            var limits = DeckProbe.Limits()
            limits.readMemoryMB = memoryMb
            limits.readCPUSeconds = Int(budget * 2) + 2
            let facts = try DeckProbe.facts(of: file, name: (file as NSString).lastPathComponent, executable: executable, limits: limits)
            guard page >= 1, page <= facts.pageCount else { throw ContentError.pageOutOfRange(page: page, pageCount: facts.pageCount) }
            let layout = chosen ?? facts.layout
            let frame = try worker.render(path: file, page: page, settings: settings, part: layout.slidePart, budget: budget).frame
            try PNG.write(frame, to: output)
        } catch let e as ContentError {
            throw CLIError(code: e.code, message: e.description)
        }
    }

    /// `lectern --render-worker --render-memory-mb N --render-cpu-seconds S`: the worker
    /// `render` starts (RenderWorker's arguments); never returns when asked for.
    static func runWorkerIfAsked(_ arguments: [String]) {
        guard arguments.count > 1, arguments[1] == "--render-worker" else { return }
        func value(_ name: String, _ fallback: Int) -> Int {
            guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let v = Int(arguments[i + 1]) else { return fallback }
            return v
        }
        RenderWorkerMain.run(memoryMB: value("--render-memory-mb", 192), cpuSeconds: value("--render-cpu-seconds", 10))
    }
}

/// An error the client prints as one line and turns into its exit code: 1 for a problem on
/// this side (README), unless the server's error code says otherwise (`CLIError(_:)`).
struct CLIError: Error, CustomStringConvertible {
    var code: String
    var message: String
    var exitCode: Int32 = 1
    var description: String { "\(message) [\(code)]" }
}
