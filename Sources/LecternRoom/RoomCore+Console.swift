import LecternModel
import LecternProtocol

/// The presenter console's part of the state (docs/protocol.md §20.1): the slide on screen
/// by its label and step, its deck's notes layout, the talk timer. Never notes: those are
/// in RoomCore+Notes, the slides by label in RoomCore+Slides, the timer in RoomCore+Timer.
extension RoomCore {
    func consoleSnapshot(wall: Double) -> ConsoleSnapshot {
        let committed = screen.committed
        var slide: SlideSnapshot?
        var layout = NotesLayout.none
        var hasNotes = false
        if screen.clip == nil, let c = committed.content, c.kind == .pdf, let item = deckEntry(c.id) {
            let deck = item.deck
            slide = deck.facts.numbering.slide(ofPage: committed.page)
            layout = deck.layout
            hasNotes = deck.hasNotes
        }
        return ConsoleSnapshot(
            slide: slide, notesLayout: layout, hasNotes: hasNotes, notesRevision: notesRevision, wrap: config.wrapAround,
            timer: timer.snapshot(at: wall))
    }
}
