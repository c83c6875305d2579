import Foundation
import LecternCore
import LecternProtocol

/// The screen queue and the clip: present, signals, clear, the floor's idle screen; a
/// clip opened, played, steered and ended.
extension RoomCore {
    func present(_ content: ContentID, page: UInt32, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
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

    /// Queues a screen change. Anything else on the screen ends a clip first (the stage is
    /// busy until it stops). A clear or a blank goes first: the change being shown (a page
    /// perhaps still rendering) and those waiting are dropped and answered that they were
    /// overtaken, so the moderator never waits behind a slow page.
    func changeScreen(_ change: ScreenQueue.Change, reply: ScreenReply?) {
        if let why = Self.pageTurnWithNoSlides(change, clipPlaying: screen.clip != nil, settled: screen.running == nil, under: screen.committed) {
            return answer(reply, why)
        }
        if let c = screen.clip { emit(.steerClip(serial: c.serial, .stop)) }
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

    private func runScreenQueue() {
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
            emit(wallEffect(op: op.id, main: .scene(target.scene)))
            return
        }
    }

    /// The stage's report on op `id`, with those it settles (`WallShows`): each goes to the
    /// pane whose queue runs it, or to the main queue.
    func shown(op id: Int, error: LecternError?) {
        for (op, e) in wall.shows.reported(id, error: error) where !paneShown(op: op, error: e) { mainShown(op: op, error: e) }
    }

    private func mainShown(op id: Int, error: LecternError?) {
        guard let op = screen.running, op.id == id else { return }
        _ = screen.finishRunning(commit: error == nil)
        if error == nil { screen.outputKnown() }
        if let error {
            log(.warning, "screen change not shown: \(error.message)")
            answer(op.reply, error)
            if statePushOwed { pushState(prompt: true) }
        } else {
            recordWall()
            persist()
            answer(op.reply, nil)
            pushState(prompt: true)
        }
        runScreenQueue()
    }

    func answer(_ reply: ScreenReply?, _ error: LecternError?) {
        guard let r = reply, let p = live(r.peer) else { return }
        if let error { fail(p, tag: r.tag, error, request: r.request.rawValue) } else { send(r.ok, to: p, tag: r.tag) }
    }

    // MARK: clips

    func playClip(_ content: ContentID, looping: Bool, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        try floor.checkCanDrive(me)
        let item = try storedEntry(content)
        try floor.checkCanPresent(me, isUploader: ledger.isOwner(me, of: content) || Whiteboard.background(content.hex) != nil)
        guard item.kind == .clip else { throw LecternError.wrongKind(is: .pdf) }
        if let c = screen.clip { emit(.steerClip(serial: c.serial, .stop)) }
        let serial = screen.newClipSerial()
        screen.opening[serial] = ScreenQueue.OpeningClip(
            content: item.snapshot, loop: looping,
            reply: ScreenReply(peer: p.id, tag: tag, request: .clipPlay, ok: .clipPlayOK))
        emit(.openClip(serial: serial, content: content.hex))
    }

    func clipOpened(_ serial: Int, _ result: Result<ClipFacts, LecternError>) {
        guard let o = screen.opening.removeValue(forKey: serial) else {
            if case .success = result { emit(.discardClip(serial: serial)) }
            return
        }
        switch result {
        case .failure(let e):
            answer(o.reply, e)
        case .success(let facts):
            guard serial == screen.clipSerial else { return emit(.discardClip(serial: serial)) }   // superseded meanwhile
            screen.clip = ScreenQueue.Clip(
                serial: serial, content: o.content, duration: facts.duration, loop: o.loop,
                progress: ClipProgress(position: o.start), asked: o.paused ? .paused : nil)
            if o.reply != nil { recordClip(o.content, duration: facts.duration) }
            answer(o.reply, nil)
            pushState()
            log(.info, "playing \(o.content.name) (\(facts.description))\(o.reply == nil ? String(format: " again from %.1f s%@", o.start, o.paused ? ", paused" : "") : "")")
            // A restored clip: the player takes the seek (and pause) before its first frame.
            if o.start > 0 || o.paused { emit(.steerClip(serial: serial, .seek(min(o.start, facts.duration)))) }
            if o.paused { emit(.steerClip(serial: serial, .pause)) }
            emit(.playClip(serial: serial, loop: o.loop))
            mainClipChanged()
            persist()
        }
    }

    func clipProgressed(_ serial: Int, _ progress: ClipProgress) {
        guard screen.clip?.serial == serial else { return }
        let wasPaused = screen.clip?.progress.state == .paused
        screen.clip?.progress = progress
        pushState()
        clipSave.owe()
        if wasPaused != (progress.state == .paused) || clipSave.due(now: now) { persist() }
    }

    func clipEnded(_ serial: Int, _ ending: ClipEnding) {
        guard screen.clip?.serial == serial else { return }
        switch ending.how {
        case .failed(let why): log(.warning, "clip ended early: \(why)")
        case .ended, .stopped:
            log(.info, "clip \(ending.how == .ended ? "ended" : "stopped"): \(ending.progress.presented) frames shown, \(ending.progress.dropped) dropped")
        }
        screen.clip = nil
        mainClipChanged()
        recordWall()   // the page beneath is on the wall again (its ink may change)
        pushState()
        persist()
    }

    func steerClip(_ message: Message, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        try floor.checkCanDrive(me)
        guard let c = screen.clip else { throw LecternError.noClip }
        switch message {
        case .clipPause:
            emit(.steerClip(serial: c.serial, .pause)); send(.clipPauseOK, to: p, tag: tag)
            clipAsked(.paused)
        case .clipResume:
            emit(.steerClip(serial: c.serial, .resume)); send(.clipResumeOK, to: p, tag: tag)
            clipAsked(.playing)
        case .clipStop: emit(.steerClip(serial: c.serial, .stop)); send(.clipStopOK, to: p, tag: tag)
        case .clipLoop(let on):
            emit(.steerClip(serial: c.serial, .loop(on)))
            send(.clipLoopOK, to: p, tag: tag)
            if c.loop != on {
                screen.clip?.loop = on
                pushState()
            }
        case .clipSeek(let ms):
            let durationMs = UInt64(max(0, c.duration) * 1000)
            guard UInt64(ms) <= durationMs else {
                throw LecternError(
                    .seekOutOfRange, detail: durationMs,
                    message: String(format: "The clip is only %.1f s long.", c.duration))
            }
            emit(.steerClip(serial: c.serial, .seek(Double(ms) / 1000)))
            send(.clipSeekOK, to: p, tag: tag)
            screen.clip?.progress.position = Double(ms) / 1000   // a seek gets its own push, paused or not
            pushState()
            clipSave.owe()
            if clipSave.due(now: now) { persist() }
        default: break
        }
    }

    /// Pause and resume show in the state at once (a push after the ok), whatever the
    /// player reports meanwhile.
    private func clipAsked(_ state: ClipProgress.State) {
        let before = screenState
        screen.clip?.asked = state
        if screenState != before {
            pushState()
            persist()
        }
    }
}
