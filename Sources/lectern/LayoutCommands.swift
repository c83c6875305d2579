import ArgumentParser
import Foundation
import LecternClient
import LecternModel
import LecternProtocol

/// `lectern layout full|split|stack|quad|pip` (moderator): the wall's layout (layout-set,
/// 0x90, docs/protocol.md §9.7). Prints the panes as the room now has them.
struct LayoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout", abstract: "Moderator: divide the wall into panes: full, split, stack, quad or pip.",
        discussion: """
            split: two side by side (0 left, 1 right); stack: one above the other (0 top); quad: 2×2 \
            (0 1 / 2 3); pip: the whole wall (0) and a small pane bottom right (1). The main pane (the \
            floor's) is kept; panes the new layout has no room for are dropped. Prints the panes.
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "full, split, stack, quad or pip") var layout: String

    func run() throws {
        guard let l = WallLayout(rawValue: layout.lowercased()) else {
            throw ValidationError("the layout is full, split, stack, quad or pip, not '\(layout)'")
        }
        try withConnection(connection) { c in
            _ = try c.request(.layoutSet(l))
            print(describePanes(try c.state()).joined(separator: "\n"))
        }
    }
}

/// `lectern pane N present FILE|ID [--page P] | play FILE|ID [--loop] | clear | assign DEVICE|none
/// | full | swap M` (moderator): one pane of the wall (pane-set, 0x91; play: pane-play, 0x93; §9.7).
struct PaneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pane",
        abstract: "Moderator: show a PDF or play a clip in a pane, clear it, hand it to a device, make it full screen, or swap two.",
        discussion: """
            lectern pane 1 present deck.pdf --page 3 · lectern pane 1 play clip.mp4 --loop · lectern pane 1 \
            clear · lectern pane 1 assign 4 (a device id or name; none: nobody) · lectern pane 1 full · \
            lectern pane 0 swap 1. A pane handed to another device is emptied first (its clip stops). \
            Assigning the main pane grants the floor. The pane's driver steers its clip (pause, resume, …).
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The pane's index (0 first).") var pane: UInt8
    @Argument(help: "present, play, clear, assign, full or swap") var action: String
    @Argument(help: "present: a PDF file or content id; play: a clip file or content id; assign: a device id or name, or none; swap: the other pane.")
    var target: String?
    @Option(help: "present: the page.") var page: UInt32 = 1
    @Flag(help: "play: loop the clip.") var loop = false

    func run() throws {
        guard Int(pane) < maxWallPanes else { throw ValidationError("a pane is 0 to \(maxWallPanes - 1), not \(pane)") }
        try withConnection(connection) { c in
            if action.lowercased() == "play" {
                guard let target else { throw ValidationError("play needs a clip file or content id: lectern pane \(pane) play clip.mp4") }
                _ = try c.request(.panePlay(pane: pane, content: try resolveContent(target, c), loop: loop))
                print(describePanes(try c.state()).joined(separator: "\n"))
                return
            }
            let a: PaneAction
            switch action.lowercased() {
            case "present":
                guard let target else { throw ValidationError("present needs a PDF file or content id: lectern pane \(pane) present deck.pdf") }
                a = .present(content: try resolveContent(target, c), page: page)
            case "clear": a = .clear
            case "full": a = .full
            case "assign":
                guard let target else { throw ValidationError("assign needs a device id or name, or none") }
                a = .assign(try Self.device(target, in: try c.state()))
            case "swap":
                guard let target, let other = UInt8(target), Int(other) < maxWallPanes else {
                    throw ValidationError("swap needs the other pane's index, 0 to \(maxWallPanes - 1)")
                }
                a = .swap(with: other)
            default:
                throw ValidationError("the action is present, play, clear, assign, full or swap, not '\(action)'")
            }
            _ = try c.request(.paneSet(PaneRequest(pane: pane, a)))
            print(describePanes(try c.state()).joined(separator: "\n"))
        }
    }

    /// A device by id or (unique) name; none or 0: nobody.
    static func device(_ s: String, in state: Snapshot) throws -> DeviceID {
        if s.lowercased() == "none" || s == "0" { return 0 }
        if let id = DeviceID(s) { return id }
        let named = state.devices.filter { $0.name == s }
        guard named.count == 1 else {
            throw ValidationError(named.isEmpty ? "no device is named '\(s)'" : "\(named.count) devices are named '\(s)': give the id")
        }
        return named[0].id
    }
}

/// `lectern wall-add FILE|ID [--page P]`: add a page to the wall beside what it shows (an open
/// room's presenter, or a moderator; wall-add, 0x92, §9.7).
struct WallAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wall-add", abstract: "Add a PDF to the wall beside what it shows (open rooms; the wall splits as needed).",
        discussion: """
            The page goes into a free pane, and you drive that pane (next, prev, goto act on it). \
            Between two commands your pane waits for you for the room's grace period (grace_period, \
            60 s unless the admin changed it), as the floor does; after it the pane is emptied. For \
            longer pauses keep a connection (lectern watch) or use the web remote.
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "A PDF file or a content id.") var target: String
    @Option(help: "The page.") var page: UInt32 = 1

    func run() throws {
        try withConnection(connection) { c in
            let content = try resolveContent(target, c)
            _ = try c.request(.wallAdd(content: content, page: page))
            print(describePanes(try c.state()).joined(separator: "\n"))
        }
    }
}

/// The wall's panes, one line each (`lectern status`, `layout`, `pane`).
func describePanes(_ s: Snapshot) -> [String] {
    guard let layout = s.layout else { return [] }
    func who(_ id: DeviceID?) -> String {
        guard let id else { return "nobody" }
        return s.devices.first { $0.id == id }.map { "\($0.name) (\(id))" } ?? "\(id)"
    }
    var lines = ["layout: \(layout.kind.rawValue)"]
    for p in layout.panes {
        let shows: String
        if let c = p.screen.content {
            if c.kind == .clip {
                let state = p.screen.clip.map { " (\($0.state.rawValue)\(layout.soundPane == p.index ? ", with the sound" : ", muted"))" } ?? ""
                shows = "clip \(c.name)\(state)"
            } else {
                shows = "\(c.name) page \(p.screen.page)/\(p.screen.pageCount)"
            }
        } else {
            shows = "idle"
        }
        let blank = p.screen.blank == .none ? "" : " (blank \(p.screen.blank.rawValue))"
        // A driver away keeps its pane for the grace period (§9.6).
        let away = p.graceRemainingMs.map { ", away (\(($0 + 999) / 1000) s left to come back)" } ?? ""
        lines.append("pane \(p.index)\(p.main ? " (main)" : ""): \(shows)\(blank), driven by \(who(p.driver))\(away)")
    }
    return lines
}
