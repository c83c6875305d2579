import LecternModel
import LecternProtocol

/// The wall's layout (docs/protocol.md §9.7): the moderator arranges the panes (layout-set,
/// pane-set, pane-play), an open room's presenter adds a page beside what is shown
/// (wall-add), and a device that drives a pane other than the main one has its screen
/// requests act there (its clip requests too: RoomCore+Clips).
/// The main pane is the room's screen (RoomCore+Screen.swift); each other pane has its own
/// `ScreenQueue`, run here the same way: one change at a time, committed once shown.
extension RoomCore {
    /// Layout requests, and the screen requests of a device that drives a pane other than
    /// the main one. False: not handled here (the request goes on as before layouts).
    mutating func layoutRequest(_ message: Message, by me: DeviceID, peer p: Peer, tag: UInt16) throws -> Bool {
        switch message {
        case .layoutSet(let l):
            try requireWallModerator(me)
            applyLayout(l)
            send(.ok, to: p, tag: tag)
            wallChanged()
            return true
        case .paneSet(let r):
            try paneSet(r, by: me, peer: p, tag: tag)
            return true
        case .wallAdd(let c, let page):
            try wallAdd(c, page: page, by: me, peer: p, tag: tag)
            return true
        case .panePlay(let pane, let c, let loop):
            try panePlay(Int(pane), c, looping: loop, by: me, peer: p, tag: tag)
            return true
        default: break
        }
        guard let i = wall.pane(drivenBy: me) else { return false }
        switch message {
        case .stateRequest:
            send(.state(snapshot(now: now, for: me)), to: p, tag: tag)
        case .control(let s):
            switch s {
            case .next, .prev, .goto, .blank, .unblank:
                changePane(i, .signal(paneWrapped(i, s)), reply: ScreenReply(peer: p.id, tag: tag, request: .control, ok: .controlOK))
            default: return false   // the floor's signals and transitions: as before
            }
        case .present(let c, let page):
            let model = try paneModel(c, page: page, by: me)
            changePane(i, .page(model), reply: ScreenReply(peer: p.id, tag: tag, request: .present, ok: .presentOK))
        case .clear:
            changePane(i, .idle, reply: ScreenReply(peer: p.id, tag: tag, request: .clear, ok: .ok))
        default: return false   // clips (RoomCore+Clips: in the pane the device drives), the rest
        }
        return true
    }

    private func requireWallModerator(_ me: DeviceID) throws {
        guard floor.role(of: me) == .moderator else { throw LecternError.moderatorOnly }
    }

    private func checkPane(_ i: Int) throws {
        guard i < wall.panes.count else { throw LecternError.noSuchPane(i, paneCount: wall.panes.count) }
    }

    /// What a pane shows for `present`-like requests: checked as present is (a PDF in the
    /// catalog, the page in range, the sender's own upload unless a moderator).
    private func paneModel(_ content: ContentID, page: UInt32, by me: DeviceID) throws -> CommittedScreen {
        let item = try storedEntry(content)
        let own = ledger.isOwner(me, of: content) || Whiteboard.background(content.hex) != nil
        guard own || floor.role(of: me) == .moderator else { throw LecternError.notYourContent }
        guard item.kind == .pdf else { throw LecternError.wrongKind(is: .clip) }
        return try Self.deckScreen(item, page: page)
    }

    private func paneWrapped(_ i: Int, _ s: ControlSignal) -> ControlSignal {
        guard config.wrapAround, let q = wall.panes[i].queue else { return s }
        let c = q.running?.target ?? q.committed
        guard c.content != nil, c.pageCount > 1, !c.growing else { return s }
        switch s {
        case .next where c.page >= c.pageCount: return .goto(page: 1)
        case .prev where c.page <= 1: return .goto(page: UInt32(c.pageCount))
        default: return s
        }
    }

    // MARK: pane-set

    private mutating func paneSet(_ r: PaneRequest, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        try requireWallModerator(me)
        let i = Int(r.pane)
        try checkPane(i)
        let main = wall.panes[i].isMain
        let reply = ScreenReply(peer: p.id, tag: tag, request: .paneSet, ok: .ok)
        switch r.action {
        case .present(let c, let page):
            let model = try paneModel(c, page: page, by: me)
            if main { changeScreen(.page(model), reply: reply) } else { changePane(i, .page(model), reply: reply) }
        case .clear:
            if main { changeScreen(.idle, reply: reply) } else { changePane(i, .idle, reply: reply) }
        case .assign(let d):
            if d != 0, floor.connection(of: d) == nil { throw LecternError.noSuchDevice(d) }
            if main {
                // The main pane is the floor's: assigning it grants the floor (0: withdraws it).
                let ev = try floor.moderate(d == 0 ? .withdraw : .grant, target: d, by: me, now: now)
                send(.ok, to: p, tag: tag)
                return apply(ev)
            }
            let driver: DeviceID? = d == 0 ? nil : d
            send(.ok, to: p, tag: tag)
            guard wall.panes[i].driver != driver else { return }
            if let d = driver, let other = wall.pane(drivenBy: d) {
                // The device moves: the pane it leaves keeps nothing of its.
                wall.setDriver(nil, of: other)
                changePane(other, .idle, reply: nil)
            }
            wall.setDriver(driver, of: i)
            // Privacy (§9.7): a pane handed to someone else shows nothing of the previous driver's.
            changePane(i, .idle, reply: nil)
            releaseStrandedAway()
            persist()
            pushState(prompt: true)
        case .full:
            var ev: [FloorEvent] = []
            var model: CommittedScreen?
            var clip: ScreenQueue.Clip?
            if !main, let q = wall.panes[i].queue {
                model = q.running?.target ?? q.committed
                // The pane's driver goes on driving it: as the main pane's, with the floor.
                if let d = wall.panes[i].driver { ev = try floor.moderate(.grant, target: d, by: me, now: now) }
                // Its clip goes on playing, over the whole wall.
                clip = q.clip
                wall.withQueue(i) { $0.clip = nil }
            }
            applyLayout(.full)
            send(.ok, to: p, tag: tag)
            apply(ev)
            if let model { changeScreen(model == .idle ? .idle : .page(model), reply: nil) }
            if let clip {
                screen.clip = clip
                screen.clipSerial = clip.serial
            }
            wallChanged()
        case .swap(let other):
            let j = Int(other)
            try checkPane(j)
            send(.ok, to: p, tag: tag)
            guard i != j else { return }
            wall.swap(i, j)
            wallChanged()
        }
    }

    // MARK: pane-play

    /// The moderator plays a clip in a pane (§9.7): any clip of the store, in any pane, over
    /// what the pane shows; its driver (if any) steers it. Answered clip-play-ok once it plays.
    private mutating func panePlay(_ i: Int, _ c: ContentID, looping: Bool, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        try requireWallModerator(me)
        try checkPane(i)
        let item = try storedEntry(c)
        guard item.kind == .clip else { throw LecternError.wrongKind(is: .pdf) }
        let slot: PaneSlot = wall.panes[i].isMain ? .main : .pane(i)
        startClip(item.snapshot, looping: looping, in: slot, reply: ScreenReply(peer: p.id, tag: tag, request: .panePlay, ok: .clipPlayOK))
    }

    // MARK: wall-add

    /// An open room's presenter (or a moderator) adds a page beside what the wall shows
    /// (§9.7): into the pane the sender drives, else the wall alone when it shows nothing,
    /// else the first free pane, growing the layout (full → split → quad) when none is free.
    private mutating func wallAdd(_ c: ContentID, page: UInt32, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        let moderator = floor.role(of: me) == .moderator
        guard moderator || config.floor == .open else { throw LecternError.wallModerated }
        let model = try paneModel(c, page: page, by: me)
        let reply = ScreenReply(peer: p.id, tag: tag, request: .wallAdd, ok: .presentOK)
        if let i = wall.pane(drivenBy: me) { return changePane(i, .page(model), reply: reply) }
        if floor.driver == me { return changeScreen(.page(model), reply: reply) }
        let wallEmpty = wall.isSinglePane && screen.running == nil && screen.clip == nil && screen.committed == .idle
        if wallEmpty, floor.holder == nil, !moderator {
            // Nothing to add beside: the sender takes the (open room's free) floor and the wall.
            apply(try floor.requestFloor(by: me, now: now).events)
            return changeScreen(.page(model), reply: reply)
        }
        if wallEmpty, moderator { return changeScreen(.page(model), reply: reply) }
        guard let i = wall.freePane ?? grownFreePane() else { throw LecternError.wallFull }
        if !moderator { wall.setDriver(me, of: i) }
        changePane(i, .page(model), reply: reply)
    }

    private mutating func grownFreePane() -> Int? {
        guard let l = wall.grown else { return nil }
        applyLayout(l)
        return wall.freePane
    }

    // MARK: the arrangement

    /// A new layout; the changes waiting in panes it has no room for are answered.
    private mutating func applyLayout(_ l: WallLayout) {
        guard l != wall.layout else { return }
        for var q in wall.setLayout(l).compactMap(\.queue) {
            for op in q.abandonAll() { answer(op.reply, Self.overtaken(op)) }
            // Its clip stops with it (and one being opened is never played).
            if let c = q.clip {
                emit(.steerClip(serial: c.serial, .stop))
                clips.sound.gone(c.serial)
            }
            for (_, o) in q.opening.sorted(by: { $0.key < $1.key }) {
                answer(o.reply, LecternError(.nothingOnScreen, message: "The pane was taken off the wall before \(o.content.name) started; it was not played."))
            }
        }
        settleSound()
        releaseStrandedAway()   // a dropped pane's driver away in its grace period has nothing to come back to
    }

    /// The arrangement changed: the wall shows it, every device is told (with the floor's
    /// change, if one is waiting for the idle screen it caused: one push, §14.1).
    private mutating func wallChanged() {
        syncOpIDs()
        emit(wallEffect(op: wall.nextWallOp()))
        recordWall()
        persist()
        if !pushes.owed { pushState(prompt: true) }
    }

    /// A device left the room: the pane it drove goes idle, driven by nobody.
    mutating func paneDriverLeft(_ d: DeviceID) {
        guard let i = wall.pane(drivenBy: d) else { return }
        wall.setDriver(nil, of: i)
        changePane(i, .idle, reply: nil)
    }

    /// What pane `i` shows now, or is being changed to: a live share over it (§29), else its
    /// clip (a clip is always newer than the change being shown: any change ends it), else
    /// the change, else its screen.
    func paneContent(_ i: Int) -> PaneContent {
        if let s = shareContent(ofPane: i) { return s }
        let q = wall.panes[i].queue ?? screen
        if let c = q.clip { return .clip(serial: c.serial) }
        return .scene((q.running?.target ?? q.committed).scene)
    }

    /// What puts the wall on the output: the whole plan, every pane as it is, or as it is
    /// being changed to (one path for one pane or several).
    mutating func wallEffect(op: Int) -> RoomEffect {
        wall.shows.asked(op)
        let panes = wall.panes.indices.map { paneContent($0) }
        var plan = WallPlan(layout: wall.layout, panes: panes)
        // A card (a poll's chart) goes over a live share in the main pane, not in its place.
        plan.cards = cardsOverShares(main: panes[wall.mainIndex])
        return .showWall(op: op, plan)
    }

    // MARK: a pane's screen queue

    /// Queues a change of pane `i` (not the main one); a clear or blank goes first, as on
    /// the main pane (`changeScreen`).
    mutating func changePane(_ i: Int, _ change: ScreenQueue.Change, reply: ScreenReply?) {
        let q = queue(.pane(i))
        if let why = Self.pageTurnWithNoSlides(change, clipPlaying: q.clip != nil, settled: q.running == nil, under: q.committed) {
            return answer(reply, why)
        }
        endClip(in: .pane(i), opening: Self.overtakes(change))
        paneScreenChanging(i)
        if Self.overtakes(change) {
            for op in wall.withQueue(i, { $0.abandonAll() }) ?? [] { answer(op.reply, Self.overtaken(op)) }
        }
        syncOpIDs()
        wall.withQueue(i) { $0.enqueue(change, reply: reply) }
        runPaneQueue(i)
    }

    private mutating func runPaneQueue(_ i: Int) {
        while let op = wall.withQueue(i, { $0.startNext() }) ?? nil, let q = wall.panes[i].queue {
            let target: CommittedScreen
            do {
                switch op.change {
                case .page(let m): target = m
                case .idle: target = .idle
                case .card(let card): target = q.committed.withCard(card)
                case .signal(let s): target = try q.committed.applying(s)
                }
            } catch {
                _ = wall.withQueue(i) { $0.finishRunning(commit: false) }
                answer(op.reply, error)
                continue
            }
            if target == q.committed, !q.outputUnsure {
                _ = wall.withQueue(i) { $0.finishRunning(commit: false) }
                answer(op.reply, nil)
                continue
            }
            wall.withQueue(i) { $0.setTarget(target) }
            emit(wallEffect(op: op.id))
            return
        }
    }

    /// Op ids are one increasing sequence over the main queue, the panes' queues and the
    /// wall's own changes: the stage sees them in the order they were asked for.
    mutating func syncOpIDs() {
        let next = max(screen.nextID, wall.nextOpID)
        screen.nextID = next
        wall.setNextOpID(next)
    }

    /// The stage's report on op `id` (settled by `WallShows`), if it is one a pane's queue
    /// runs (true). Any other op is the main queue's, or one nothing waits for (a wall op,
    /// a pane since dropped).
    mutating func paneShown(op id: Int, error: LecternError?) -> Bool {
        guard let i = wall.pane(runningOp: id), let op = wall.withQueue(i, { $0.finishRunning(commit: error == nil) }) ?? nil else {
            return false
        }
        if let error {
            log(.warning, "pane \(i) change not shown: \(error.message)")
            answer(op.reply, error)
        } else {
            wall.withQueue(i) { $0.outputKnown() }
            recordWall()
            persist()
            answer(op.reply, nil)
            pushState(prompt: true)
        }
        runPaneQueue(i)
        return true
    }

    // MARK: the state

    /// The state's `layout` object: panes' rectangles as shares of the output (§14.2).
    func layoutSnapshot(now: Double) -> LayoutSnapshot {
        let unit = 10_000
        let rects = wall.layout.paneRects(width: unit, height: unit)
        let u = Double(unit)
        return LayoutSnapshot(
            kind: wall.layout,
            panes: wall.panes.enumerated().map { i, pane in
                let r = rects[i]
                return PaneSnapshot(
                    index: i, rect: PaneSnapshot.Rect(x: Double(r.x) / u, y: Double(r.y) / u, width: Double(r.width) / u, height: Double(r.height) / u),
                    driver: pane.isMain ? floor.driver : pane.driver, main: pane.isMain,
                    screen: pane.queue.map { Self.screenState($0) } ?? screenState, graceRemainingMs: paneGraceRemainingMs(i, now: now),
                    pageImage: paneImagePath(i))
            },
            soundPane: soundPane)
    }

    /// The state as `device` gets it: its `screen` is the pane it drives (§9.7).
    func snapshot(now: Double, for device: DeviceID) -> Snapshot {
        var s = snapshot(now: now)
        if let i = wall.pane(drivenBy: device), let q = wall.panes[i].queue {
            s.screen = Self.screenState(q)
            s.ink?.box = inkBox(for: device)
        }
        return s
    }

    /// The state push for a device that drives a pane other than the main one (encoded for
    /// it alone: its `screen` differs); nil for everyone else (they share one encoding).
    mutating func paneStateBytes(for p: Peer) -> [UInt8]? {
        guard p.viewer == nil, let d = p.deviceID, wall.pane(drivenBy: d) != nil else { return nil }
        return Message.state(snapshot(now: now, for: d)).encode(tag: 0, deviceID: 0)
    }
}
