import Foundation
import LecternModel
import LecternProtocol

/// The main pane's screen queue: present, signals, clear, the floor's idle screen (its
/// clip: RoomCore+Clips.swift).
extension RoomCore {
    mutating func present(_ content: ContentID, page: UInt32, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        try floor.checkCanDrive(me)
        let item = try storedEntry(content)
        try floor.checkCanPresent(me, isUploader: ledger.isOwner(me, of: content) || Whiteboard.background(content.hex) != nil)
        guard item.kind == .pdf else { throw LecternError.wrongKind(is: .clip) }
        let model = try Self.deckScreen(item, page: page)
        changeScreen(.page(model), reply: ScreenReply(peer: p.id, tag: tag, request: .present, ok: .presentOK))
    }

    /// Page `page` (0: the first) of the deck `item` as a screen, or why not: past its
    /// pages, `pageOutOfRange`; past the pages ready of a deck still converting (§30.8),
    /// `pageStillConverting`.
    static func deckScreen(_ item: ContentEntry, page: UInt32) throws -> CommittedScreen {
        let n = max(1, Int(page))
        var model = CommittedScreen(content: item.snapshot, page: min(n, max(1, item.pages)), pageCount: item.pages, blank: .none, part: item.deck.layout.slidePart)
        model.growing = item.growing
        if item.growing, n > item.pages { throw model.stillToCome(n) }
        guard n <= item.pages else { throw LecternError.pageOutOfRange(page: UInt32(n), pageCount: UInt32(item.pages)) }
        return model
    }

    /// Queues a screen change. Anything else on the screen ends a clip first (a clear or a
    /// blank also drops a clip still being opened). A clear or a blank goes first: the change being shown (a page
    /// perhaps still rendering) and those waiting are dropped and answered that they were
    /// overtaken, so the moderator never waits behind a slow page.
    mutating func changeScreen(_ change: ScreenQueue.Change, reply: ScreenReply?) {
        if let why = Self.pageTurnWithNoSlides(change, clipPlaying: screen.clip != nil, settled: screen.running == nil, under: screen.committed) {
            return answer(reply, why)
        }
        endClip(in: .main, opening: Self.overtakes(change))
        // A card (a poll's chart) is an overlay: it goes over a live share, not in its place.
        if case .card = change {} else { mainScreenChanging() }
        if Self.overtakes(change) {
            for op in screen.abandonAll() { answer(op.reply, Self.overtaken(op)) }
        }
        syncOpIDs()
        screen.enqueue(change, reply: reply)
        runScreenQueue()
    }

    /// Next, previous or goto while a clip plays over the idle screen (it was started with no
    /// slides on the wall, §11): there is no page to turn to, so the clip plays on and the
    /// sender is told why (`nothingOnScreen`), rather than the clip being stopped and the
    /// wall left idle. With slides under the clip, a page turn stops it as any change does.
    static func pageTurnWithNoSlides(_ change: ScreenQueue.Change, clipPlaying: Bool, settled: Bool, under: CommittedScreen) -> LecternError? {
        guard clipPlaying, settled, under.content == nil, case .signal(let s) = change else { return nil }
        let what: String
        switch s {
        case .next: what = "Next"
        case .prev: what = "Previous"
        case .goto: what = "Go to a page"
        default: return nil
        }
        return LecternError(
            .nothingOnScreen,
            message: "A clip is playing with no slides under it: \(what) has no page to turn to, so the clip plays on. Stop the clip to go back to the idle screen.")
    }

    /// Clear and blank don't wait for the screen changes before them.
    static func overtakes(_ change: ScreenQueue.Change) -> Bool {
        switch change {
        case .idle, .signal(.blank): return true
        default: return false
        }
    }

    /// What a change dropped by a clear or blank is answered.
    static func overtaken(_ op: ScreenQueue.Op) -> LecternError {
        let what: String
        if case .page(let m) = op.change { what = "page \(m.page)" } else { what = "that change" }
        return LecternError(.nothingOnScreen, message: "The screen was cleared or blanked before \(what) was shown; it was not shown.")
    }

    private mutating func runScreenQueue() {
        while let op = screen.startNext() {
            let committed = screen.committed
            let target: CommittedScreen
            do {
                switch op.change {
                case .page(let m): target = m
                case .idle: target = .idle
                case .card(let card): target = committed.withCard(card)
                case .signal(let s): target = try committed.applying(s)
                }
            } catch {
                _ = screen.finishRunning(commit: false)
                answer(op.reply, error)
                continue
            }
            if target == committed, !screen.outputUnsure {
                _ = screen.finishRunning(commit: false)
                answer(op.reply, nil)
                continue
            }
            screen.setTarget(target)
            emit(wallEffect(op: op.id))
            return
        }
    }

    /// The stage's report on op `id`, with those it settles (`WallShows`): each goes to the
    /// pane whose queue runs it, or to the main queue.
    mutating func shown(op id: Int, error: LecternError?) {
        for (op, e) in wall.shows.reported(id, error: error) where !paneShown(op: op, error: e) { mainShown(op: op, error: e) }
    }

    private mutating func mainShown(op id: Int, error: LecternError?) {
        guard let op = screen.running, op.id == id else { return }
        _ = screen.finishRunning(commit: error == nil)
        if error == nil { screen.outputKnown() }
        if let error {
            log(.warning, "screen change not shown: \(error.message)")
            answer(op.reply, error)
            if pushes.owed { pushState(prompt: true) }
        } else {
            recordWall()
            persist()
            answer(op.reply, nil)
            pushState(prompt: true)
        }
        runScreenQueue()
    }

    mutating func answer(_ reply: ScreenReply?, _ error: LecternError?) {
        guard let r = reply, let p = live(r.peer) else { return }
        if let error { fail(p, tag: r.tag, error, request: r.request.rawValue) } else { send(r.ok, to: p, tag: r.tag) }
    }
}
