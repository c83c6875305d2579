import ArgumentParser
import Foundation
import LecternClient
import LecternModel
import LecternProtocol

/// `lectern point`, `lectern draw`, `lectern ink ...` (docs/protocol.md §22).
struct PointCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "point", abstract: "Show the pointer at X Y of the page (0…1 each, from the top left corner).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "Across the page, 0 (left) to 1 (right).") var x: Double
    @Argument(help: "Down the page, 0 (top) to 1 (bottom).") var y: Double
    @Option(help: "Seconds the dot stays before it fades.") var hold: Double = 2

    func validate() throws {
        guard (0...1).contains(x), (0...1).contains(y) else { throw ValidationError("X and Y are from 0 to 1.") }
        guard (0...60).contains(hold) else { throw ValidationError("--hold is from 0 to 60 seconds.") }
    }

    func run() throws {
        try withConnection(connection) { c in
            try takeFloorIfOpen(c, role: connection.role)
            try c.confirm([c.point(x: x, y: y)])
            Thread.sleep(forTimeInterval: hold)
            try c.confirm([c.point(x: x, y: y, lifted: true)])
        }
    }
}

struct DrawCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "draw",
        abstract: "Draw a stroke on the page on screen from a JSON file.",
        discussion: """
            The file holds one stroke, {"points": [[x, y], ...], "tool": "pen"|"highlighter", \
            "width": "thin"|"thick", "color": 0-8}, or a list of them; points are page coordinates \
            (0…1 each, from the top left corner), at most 1000 a stroke. Prints each stroke's id.
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The JSON file (- for standard input).") var file: String

    struct Stroke: Decodable {
        var points: [[Double]]
        var tool: String?
        var width: String?
        var color: UInt8?
    }

    func run() throws {
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let d = FileManager.default.contents(atPath: file) else { throw CLIError(code: "argument", message: "Can't read \(file).", exitCode: 1) }
            data = d
        }
        let strokes: [Stroke]
        do {
            if let one = try? JSONDecoder().decode(Stroke.self, from: data) { strokes = [one] } else { strokes = try JSONDecoder().decode([Stroke].self, from: data) }
        } catch {
            throw CLIError(code: "argument", message: "\(file) is not a stroke: \(error)", exitCode: 1)
        }
        let parsed = try strokes.enumerated().map { i, s -> (points: [InkPoint], tool: InkTool, width: InkWidth, color: UInt8) in
            func bad(_ why: String) -> CLIError { CLIError(code: "argument", message: "stroke \(i + 1): \(why)", exitCode: 1) }
            guard !s.points.isEmpty, s.points.count <= InkMessage.maxPointsPerStroke else { throw bad("1 to \(InkMessage.maxPointsPerStroke) points, not \(s.points.count)") }
            let points = try s.points.map { p -> InkPoint in
                guard p.count == 2, p.allSatisfy({ $0.isFinite && (0...1).contains($0) }) else { throw bad("a point is [x, y] with both from 0 to 1, not \(p)") }
                return InkPoint(px: p[0], py: p[1])
            }
            let tool: InkTool
            switch s.tool ?? "pen" {
            case "pen": tool = .pen
            case "highlighter": tool = .highlighter
            default: throw bad("tool is \"pen\" or \"highlighter\"")
            }
            let width: InkWidth
            switch s.width ?? "thin" {
            case "thin": width = .thin
            case "thick": width = .thick
            default: throw bad("width is \"thin\" or \"thick\"")
            }
            guard (s.color ?? 0) <= UInt8(InkPalette.colors.count) else { throw bad("color is 0 (yours) to \(InkPalette.colors.count)") }
            return (points, tool, width, s.color ?? 0)
        }
        try withConnection(connection) { c in
            try takeFloorIfOpen(c, role: connection.role)
            for s in parsed {
                let ok = try c.draw(s.points, tool: s.tool, width: s.width, colorIndex: s.color)
                print(ok.strokeID)
            }
        }
    }
}

struct InkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ink", abstract: "clear [--deck] | allow ID | deny ID | undo | erase: the ink on the page on screen.")
    @OptionGroup var connection: ConnectionOptions
    @Argument var action: String
    @Argument var device: UInt8?
    @Flag(help: "With clear: every page of the deck, not only the one on screen.") var deck = false

    func validate() throws {
        switch action {
        case "clear", "undo", "erase": if device != nil { throw ValidationError("\(action) takes no device.") }
        case "allow", "deny": if device == nil { throw ValidationError("\(action) needs a device id (see lectern status).") }
        default: throw ValidationError("ink: clear [--deck] | allow ID | deny ID | undo | erase")
        }
        if deck && action != "clear" { throw ValidationError("--deck goes with clear.") }
    }

    func run() throws {
        try withConnection(connection) { c in
            switch action {
            case "clear": try c.inkClear(deck: deck)
            case "undo": try c.inkUndo()
            case "erase": try c.inkErase()
            case "allow": try c.inkAllow(device!, true)
            default: try c.inkAllow(device!, false)
            }
        }
    }
}

struct WhiteboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whiteboard", abstract: "Show a new whiteboard (a blank 16:9 page to draw on), white or black.")
    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "A black board.") var black = false

    func run() throws {
        try withConnection(connection) { c in
            try takeFloorIfOpen(c, role: connection.role)
            _ = try c.request(.ink(.whiteboard(black: black)))
            let s = try c.state()
            print("\(s.screen.content?.name ?? "Whiteboard") \(s.screen.page) of \(s.screen.pageCount)")
        }
    }
}
