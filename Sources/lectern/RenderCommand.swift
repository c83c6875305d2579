import ArgumentParser
import Foundation
import LecternCore
import LecternPipeline
import LecternRender

/// `lectern render`: the service's frame pipeline, offline.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a page into an output frame (PNG) exactly as the service would show it.")

    @Argument(help: "A PDF file.") var file: String
    @Option(help: "Page number, from 1.") var page = 1
    @Option(help: "Output mode WxH[@R].") var mode = "1920x1080"
    @Option(help: "Bar colour (#rrggbb or a name).") var background = "black"
    @Option(help: "Overscan safe-area margin, percent of each edge.") var overscan = 0.0
    @Option(name: .shortAndLong, help: "Where to write the PNG.") var output: String

    func run() throws {
        guard let m = DisplayMode(parsing: mode) else { throw ValidationError("--mode must look like 1920x1080, not '\(mode)'") }
        guard let bg = RGB(parsing: background) else { throw ValidationError("--background must be #rrggbb or a colour name, not '\(background)'") }
        guard (0...25).contains(overscan) else { throw ValidationError("--overscan must be 0–25 percent") }
        let settings = Compositor.Settings(width: m.width, height: m.height, background: bg, overscanPercent: overscan)
        do {
            let doc = try PDFDocument(path: file)
            let frame = try Compositor.renderPage(doc, page: page, settings: settings)
            try PNG.write(frame, to: output)
        } catch let e as ContentError {
            throw CLIError(code: e.code, message: e.description)
        }
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
