import LecternModel
import LecternProtocol

/// Clips in the wall's panes (§9.7, §11): a clip plays over the screen of the pane its
/// device drives (the main pane for the floor's driver), opened, played, steered and ended
/// there; each pane has at most one. Two panes may play clips at once; one of them has the
/// sound (`ClipSoundRule`, §23.1). A clip is one more thing a pane shows: the wall's plan
/// carries it as `PaneContent.clip`, and anything else shown in the pane ends it.
extension RoomCore {
    mutating func newClipSerial() -> Int {
        clips.newSerial()
    }

    mutating func playClip(_ content: ContentID, looping: Bool, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        let slot = drivenSlot(me)
        if slot == .main { try floor.checkCanDrive(me) }
        let item = try storedEntry(content)
        let own = ledger.isOwner(me, of: content) || Whiteboard.background(content.hex) != nil
        if slot == .main {
            try floor.checkCanPresent(me, isUploader: own)
        } else if !own, floor.role(of: me) != .moderator {
            throw LecternError.notYourContent
        }
        guard item.kind == .clip else { throw LecternError.wrongKind(is: .pdf) }
        startClip(item.snapshot, looping: looping, in: slot, reply: ScreenReply(peer: p.id, tag: tag, request: .clipPlay, ok: .clipPlayOK))
    }

    /// Opens a clip for `slot`, ending the one it plays; played once opened (`clipOpened`).
    mutating func startClip(_ content: ContentSnapshot, looping: Bool, in slot: PaneSlot, reply: ScreenReply?, start: Double = 0, paused: Bool = false) {
        endClip(in: slot)
        switch slot {   // a clip going up in a pane ends a share there (§29)
        case .main: mainScreenChanging()
        case .pane(let i): paneScreenChanging(i)
        }
        let serial = newClipSerial()
        withQueue(slot) {
            $0.clipSerial = serial
            $0.opening[serial] = ScreenQueue.OpeningClip(content: content, loop: looping, reply: reply, start: start, paused: paused)
        }
        emit(.openClip(serial: serial, content: content.id.hex))
    }

    /// The clip playing in `slot` stops, at once as far as the wall and the state go: the
    /// plan no longer shows it, its report of the end is only logged. With `opening`, the
    /// clips being opened there are dropped too (answered, never played): a pane cleared,
    /// or handed to someone else, never starts the previous driver's clip.
    mutating func endClip(in slot: PaneSlot, opening: Bool = false) {
        if let c = queue(slot).clip {
            emit(.steerClip(serial: c.serial, .stop))
            // The wall showed the clip: the change that ends it is shown even if the screen
            // under it stays as it was.
            withQueue(slot) {
                $0.clip = nil
                $0.outputChanged()
            }
            clips.sound.gone(c.serial)
            settleSound()
        }
        guard opening else { return }
        let dropped = withQueue(slot) { q -> [ScreenQueue.OpeningClip] in
            defer { q.opening = [:] }
            return q.opening.sorted { $0.key < $1.key }.map(\.value)
        }
        for o in dropped {
            answer(
                o.reply,
                LecternError(.nothingOnScreen, message: "The screen was cleared, or handed to someone else, before \(o.content.name) started; it was not played."))
        }
    }

    mutating func clipOpened(_ serial: Int, _ result: Result<ClipFacts, LecternError>) {
        guard let slot = slot(ofClip: serial), let o = withQueue(slot, { $0.opening.removeValue(forKey: serial) }) else {
            if case .success = result { emit(.discardClip(serial: serial)) }
            return
        }
        switch result {
        case .failure(let e):
            answer(o.reply, e)
        case .success(let facts):
            guard serial == queue(slot).clipSerial else { return emit(.discardClip(serial: serial)) }   // superseded meanwhile
            withQueue(slot) {
                $0.clip = ScreenQueue.Clip(
                    serial: serial, content: o.content, duration: facts.duration, loop: o.loop,
                    progress: ClipProgress(position: o.start), asked: o.paused ? .paused : nil)
            }
            if o.reply != nil, slot == .main { recordClip(o.content, duration: facts.duration) }
            clips.sound.took(serial)
            settleSound()
            answer(o.reply, nil)
            pushState()
            let place = slot == .main ? "" : " in pane \(paneIndex(slot))"
            log(
                .info,
                "playing \(o.content.name)\(place) (\(facts.description))\(o.reply == nil ? String(format: " again from %.1f s%@", o.start, o.paused ? ", paused" : "") : "")")
            // A restored clip: the player takes the seek (and pause) before its first frame.
            if o.start > 0 || o.paused { emit(.steerClip(serial: serial, .seek(min(o.start, facts.duration)))) }
            if o.paused { emit(.steerClip(serial: serial, .pause)) }
            emit(.playClip(serial: serial, loop: o.loop, layout: wall.layout, pane: paneIndex(slot)))
            clipChanged(in: slot)
            persist()
        }
    }

    mutating func clipProgressed(_ serial: Int, _ progress: ClipProgress) {
        guard let slot = slot(ofClip: serial), queue(slot).clip?.serial == serial else { return }
        let wasPaused = queue(slot).clip?.progress.state == .paused
        withQueue(slot) { $0.clip?.progress = progress }
        pushState()
        clips.save.owe()
        if wasPaused != (progress.state == .paused) || clips.save.due(now: now) { persist() }
    }

    mutating func clipEnded(_ serial: Int, _ ending: ClipEnding) {
        switch ending.how {
        case .failed(let why): log(.warning, "clip ended early: \(why)")
        case .ended, .stopped:
            log(.info, "clip \(ending.how == .ended ? "ended" : "stopped"): \(ending.progress.presented) frames shown, \(ending.progress.dropped) dropped")
        }
        guard let slot = slot(ofClip: serial), queue(slot).clip?.serial == serial else { return }   // stopped by the room already
        withQueue(slot) { $0.clip = nil }
        clips.sound.gone(serial)
        settleSound()
        clipChanged(in: slot)
        if slot == .main { recordWall() }   // the page beneath is on the wall again (its ink may change)
        pushState()
        persist()
    }

    /// A clip started or ended in `slot`: the wall's plan says so. (A change of the pane being
    /// shown is older than the clip: any change ends the clip. This show carries both.)
    mutating func clipChanged(in slot: PaneSlot) {
        syncOpIDs()
        emit(wallEffect(op: wall.nextWallOp()))
        recordWall()   // a wall of several panes: its record page has the clip in its pane (§26.1)
    }

    mutating func steerClip(_ message: Message, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        let slot = drivenSlot(me)
        if slot == .main { try floor.checkCanDrive(me) }
        guard let c = queue(slot).clip else { throw LecternError.noClip }
        switch message {
        case .clipPause:
            emit(.steerClip(serial: c.serial, .pause)); send(.clipPauseOK, to: p, tag: tag)
            clipAsked(.paused, in: slot)
        case .clipResume:
            emit(.steerClip(serial: c.serial, .resume)); send(.clipResumeOK, to: p, tag: tag)
            // A resume takes the sound (§23.1), even of a clip that was playing.
            clips.sound.took(c.serial)
            if settleSound() { pushState() }
            clipAsked(.playing, in: slot)
        case .clipStop: emit(.steerClip(serial: c.serial, .stop)); send(.clipStopOK, to: p, tag: tag)
        case .clipLoop(let on):
            emit(.steerClip(serial: c.serial, .loop(on)))
            send(.clipLoopOK, to: p, tag: tag)
            if c.loop != on {
                withQueue(slot) { $0.clip?.loop = on }
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
            withQueue(slot) { $0.clip?.progress.position = Double(ms) / 1000 }   // a seek gets its own push, paused or not
            pushState()
            clips.save.owe()
            if clips.save.due(now: now) { persist() }
        default: break
        }
    }

    /// Pause and resume show in the state at once (a push after the ok), whatever the
    /// player reports meanwhile.
    private mutating func clipAsked(_ state: ClipProgress.State, in slot: PaneSlot) {
        let before = Self.screenState(queue(slot))
        withQueue(slot) { $0.clip?.asked = state }
        if Self.screenState(queue(slot)) != before {
            pushState()
            persist()
        }
    }

    /// Tells the shell which clip has the sound when that changed (§23.1); true if it did.
    @discardableResult
    mutating func settleSound() -> Bool {
        guard let h = clips.sound.change() else { return false }
        emit(.clipSound(serial: h))
        return true
    }

    /// The pane whose clip has the sound (the state's `layout.soundPane`), if any.
    var soundPane: Int? {
        guard let serial = clips.sound.holder, let slot = slot(ofClip: serial), queue(slot).clip?.serial == serial else { return nil }
        return paneIndex(slot)
    }

    /// What a screen shows, as the state's `screen` object: the clip while one plays over
    /// the slide, else the slide.
    static func screenState(_ q: ScreenQueue) -> ScreenSnapshot {
        guard let c = q.clip else { return q.committed.snapshot }
        let state: ClipSnapshot.Playback = (c.asked ?? c.progress.state) == .paused ? .paused : .playing
        return ScreenSnapshot(
            content: c.content, page: 0, pageCount: 0, blank: .none,
            clip: ClipSnapshot(
                state: state, positionMs: UInt32(max(0, c.progress.position) * 1000),
                durationMs: UInt32(max(0, c.duration) * 1000), loop: c.loop,
                presentedFrames: UInt32(clamping: c.progress.presented),
                droppedFrames: UInt32(clamping: c.progress.dropped)))
    }
}
