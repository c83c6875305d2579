import ArgumentParser
import Foundation
import LecternClient
import LecternModel
import LecternProtocol

/// `lectern notes-layout`: whether a deck is beamer's "notes on second screen" (the wall
/// shows only its slide half) or an ordinary deck shown whole — the switch the web console
/// has (notes-layout, 0x66, docs/protocol.md §20.3).
struct NotesLayoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notes-layout",
        abstract: "Show a deck whole, or as a beamer deck's slide half: [PDF|ID] whole | split | right | left | top | bottom | detect.",
        discussion: """
            whole (or none): every page is shown whole. split (or right): the page's left half \
            is the slide, the right half beamer's notes; left, top, bottom: the notes are there. \
            detect: as the appliance decided when the deck was stored. The deck is the one on \
            screen unless a PDF file or content id comes first (or --content). Who may: as \
            notes-file (the deck's uploader, the floor holder, the moderator).
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "[PDF file or content id] then the layout.") var words: [String]
    @Option(help: "A PDF file or content id (default: the deck on screen).") var content: String?

    /// The layout a word names (nil inside: detect again); nil: not a layout.
    static func layout(_ word: String) -> NotesLayout?? {
        switch word.lowercased() {
        case "whole", "none": return .some(NotesLayout.none)
        case "split", "right": return .some(.right)
        case "left": return .some(.left)
        case "top": return .some(.top)
        case "bottom": return .some(.bottom)
        case "detect", "auto": return .some(nil)
        default: return nil
        }
    }

    func validate() throws {
        guard (1...2).contains(words.count), words.count == 1 || content == nil else {
            throw ValidationError("Give the layout, after the deck if not --content: lectern notes-layout [PDF|ID] whole|split.")
        }
        guard Self.layout(words.last!) != nil else {
            throw ValidationError("The layout is whole, split, right, left, top, bottom or detect, not '\(words.last!)'.")
        }
    }

    func run() throws {
        guard let chosen = Self.layout(words.last!) else { return }
        let named = words.count == 2 ? words[0] : content
        try withConnection(connection) { c in
            let id: ContentID
            if let named {
                id = try resolveContent(named, c)
            } else {
                guard let onScreen = try c.state().screen.content, onScreen.kind == .pdf else {
                    throw CLIError(code: "argument", message: "No PDF is on screen — name one first or with --content.", exitCode: 1)
                }
                id = onScreen.id
            }
            _ = try c.request(.notesLayout(content: id, layout: chosen))
        }
    }
}
