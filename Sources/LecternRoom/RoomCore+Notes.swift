import LecternModel
import LecternProtocol

/// Speaker notes (docs/protocol.md §20.2–20.3): for the floor holder and the moderator
/// only, never in the state every device gets; typed, from a .pdfpc file or the PDF's
/// annotations; a beamer deck's notes layout. Typed notes belong to their author (the
/// device that typed them, by its resume token): an upload is stored once per content,
/// so another presenter of the same PDF neither reads nor replaces them.
extension RoomCore {
    /// Notes are for whoever presents: the floor holder or the device it handed the floor
    /// to, for the deck on screen or one they uploaded; and the moderator, for any deck.
    func checkMaySeeNotes(_ me: DeviceID, of item: ContentEntry) throws {
        if floor.devices[me]?.role == .moderator { return }
        guard me == floor.holder || me == floor.delegate else { throw LecternError.notesPrivate }
        guard screen.committed.content?.id == item.id || ledger.isOwner(me, of: item.id) else { throw LecternError.notesPrivate }
    }

    /// Notes are changed by those who may see them, and by the deck's uploaders (a
    /// presenter attaches the .pdfpc file with the deck, before taking the floor; reading
    /// them back waits for the floor).
    func checkMayChangeNotes(_ me: DeviceID, of item: ContentEntry) throws {
        if ledger.isOwner(me, of: item.id) { return }
        try checkMaySeeNotes(me, of: item)
    }

    /// The key `me`'s typed notes are kept under (nil: not a registered device).
    func notesAuthor(_ me: DeviceID) -> String? { floor.devices[me].map { DeckNotes.author(of: $0.resumeToken) } }

    private func deck(_ content: ContentID, for me: DeviceID, changing: Bool = false) throws -> ContentEntry {
        let item = try storedEntry(content)
        guard item.kind == .pdf else {
            throw LecternError(.wrongKind, detail: UInt64(ContentKind.clip.rawValue), message: "That is a clip — only PDFs have speaker notes.")
        }
        if changing { try checkMayChangeNotes(me, of: item) } else { try checkMaySeeNotes(me, of: item) }
        return item
    }

    mutating func notesRequest(_ r: NotesRequest, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        let item = try deck(r.content, for: me)
        let page = Int(r.page)
        guard page <= item.pages else { throw LecternError.pageOutOfRange(page: r.page, pageCount: UInt32(item.pages)) }
        let reply = Message.notes(item.deck.reply(content: r.content, page: page, for: notesAuthor(me)))
        // Every page's notes of a long deck could outgrow a frame: then page by page.
        guard reply.encodeBody().count <= ProtocolLimits.maxChunkLength else {
            throw LecternError(
                .notesTooLarge, detail: UInt64(ProtocolLimits.maxChunkLength),
                message: "This deck's notes are too long to send at once — ask for them page by page.")
        }
        send(reply, to: p, tag: tag)
    }

    mutating func notesEdit(_ e: NotesEdit, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        let item = try deck(e.content, for: me, changing: true)
        let page = Int(e.page)
        guard page >= 1, page <= item.pages else { throw LecternError.pageOutOfRange(page: e.page, pageCount: UInt32(item.pages)) }
        guard let author = notesAuthor(me) else { throw LecternError.notesPrivate }
        var notes = item.deck.notes
        guard notes.typed?[author] != nil || notes.authors < DeckNotes.maxAuthors else {
            throw LecternError(
                .notesTooLarge, detail: UInt64(ConsoleLimits.maxDeckNotesBytes),
                message: "\(DeckNotes.maxAuthors) presenters already keep typed notes with this file — attach a .pdfpc file instead.")
        }
        notes.setTyped(e.text, page: page, by: author)
        try keepNotes(notes, for: item, from: me, author: author)
        send(.ok, to: p, tag: tag)
        pushState()
    }

    mutating func notesFile(_ content: ContentID, _ file: [UInt8], by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        let item = try deck(content, for: me, changing: true)
        let read = try PdfpcFile.read(file, for: item.deck.facts.numbering)
        // The file's notes (and the talk's facts) are replaced; the typed notes of others
        // stay theirs; the attacher's own typed notes give way to the file's.
        var notes = item.deck.notes
        notes.pages = read.pages
        notes.durationMinutes = read.durationMinutes
        notes.endTime = read.endTime
        notes.lastMinutes = read.lastMinutes
        if let l = read.layout { notes.layout = l }
        if let author = notesAuthor(me) { notes.removeTyped(by: author) }
        try keepNotes(notes, for: item, from: me, author: notesAuthor(me))
        // The talk's length and end from the file set the timer unless it is running.
        if !timer.running, timer.accumulatedMs == 0 {
            if let end = notes.endTime, let at = Self.nextOccurrence(end, after: wallTime) {
                try? timer.apply(TimerCommand(action: .set, mode: .endTime, value: at), at: wallTime)
            } else if let d = notes.durationMinutes {
                try? timer.apply(TimerCommand(action: .set, mode: .countdown, value: UInt64(d) * 60_000), at: wallTime)
            }
            if let w = notes.lastMinutes { timer.warnMinutes = w }
            persist()
        }
        send(.ok, to: p, tag: tag)
        pushState()
    }

    /// A beamer deck's notes side, chosen by hand (nil: as detected). The wall changes at
    /// once when the deck is on screen.
    mutating func notesLayout(_ content: ContentID, _ layout: NotesLayout?, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        let item = try deck(content, for: me, changing: true)
        var notes = item.deck.notes
        notes.layout = layout
        try keepNotes(notes, for: item, from: me)
        let updated = deckEntry(content)?.deck.layout ?? .none
        var model = screen.committed
        if model.content?.id == content, model.part != updated.slidePart {
            model.part = updated.slidePart
            changeScreen(.page(model), reply: ScreenReply(peer: p.id, tag: tag, request: .notesLayout, ok: .ok))
        } else {
            send(.ok, to: p, tag: tag)
            pushState()
        }
    }

    private mutating func keepNotes(_ notes: DeckNotes, for item: ContentEntry, from me: DeviceID, author: String? = nil) throws {
        let bytes = author.map { notes.textBytes(for: $0) } ?? notes.textBytes
        guard bytes <= ConsoleLimits.maxDeckNotesBytes else { throw LecternError.notesTooLarge(limit: ConsoleLimits.maxDeckNotesBytes) }
        if catalog[item.id] != nil { catalog.setNotes(notes, for: item.id) } else { conversions.setEarlyNotes(notes, for: item.id) }
        notesRevision += 1
        emit(.saveNotes(item.id, notes))
        log(.info, "notes of \(item.name) changed by device \(me)")
    }
}
