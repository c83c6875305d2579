import LecternModel
import LecternProtocol

/// Live sharing (docs/protocol.md §29): a share goes up under the floor's rules exactly as
/// `present` does, waits for the moderator where presenting would need the floor, pauses,
/// stops, and ends when its pane is no longer its sharer's. The media frames themselves never
/// come here: the shell routes them to the share's decoder (`RoomEffect.shareRoute`).
extension RoomCore {
    mutating func shareRequest(_ m: ShareMessage, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        switch m {
        case .begin(let c): try shareBegin(c, by: me, peer: p, tag: tag)
        case .frame, .audio:
            // A share's frames and sound go to its decoder, never here: this connection shares nothing.
            throw LecternError.noShare
        case .control(let a): try shareControl(a, by: me, peer: p, tag: tag)
        case .moderate(let d, let action): try shareModerate(d, action, by: me, peer: p, tag: tag)
        case .picture(let d, let w, let h):
            guard floor.role(of: me) == .moderator || d == me else { throw LecternError.moderatorOnly }
            guard let s = shares[d], s.connection != nil || s.slot != nil else { throw LecternError.shareNoPicture }
            try takePictureSlot(p, tag: tag, maxWidth: Int(w), maxHeight: Int(h))
            emit(.sharePicture(p.id, tag: tag, serial: s.serial, maxWidth: Int(w), maxHeight: Int(h)))
        default: throw LecternError.unknownCommand(m.command.rawValue)
        }
    }

    /// A viewer's picture of the share in the main pane (what it follows, as it follows the
    /// slide there, §29.8): only that one, only while it is on the wall.
    mutating func viewerSharePicture(of d: DeviceID, maxWidth: Int, maxHeight: Int, peer p: Peer, tag: UInt16) throws {
        guard let s = shares[d], sharePane(s) == wall.mainIndex else {
            throw LecternError(.shareNoPicture, message: "Viewers see the share on the wall, and only while it is shown.")
        }
        try takePictureSlot(p, tag: tag, maxWidth: maxWidth, maxHeight: maxHeight)
        emit(.sharePicture(p.id, tag: tag, serial: s.serial, maxWidth: maxWidth, maxHeight: maxHeight))
    }

    // MARK: share-begin

    private mutating func shareBegin(_ c: ShareConfig, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        if let e = c.check(ShareLimits(config.share)) { throw e }
        if var s = shares[me] {
            // Again, on this connection (a new size or codec) or after a reconnect: the same
            // share, in the same place; decoding starts again at the next key frame.
            s.config = c
            s.connection = p.id
            shares[me] = s
            emit(.shareRoute(serial: s.serial, connection: p.id, device: me))
            send(.share(.ready(ready(s))), to: p, tag: tag)
            shareWallChanged(s)
            return
        }
        let slot = try shareSlot(for: me, placement: c.placement)
        var s = shares.add(device: me, connection: p.id, config: c, name: floor.name(of: me) ?? "")
        emit(.shareStart(serial: s.serial, c))
        emit(.shareRoute(serial: s.serial, connection: p.id, device: me))
        if let slot {
            s = goLive(s, in: slot)
        }
        send(.share(.ready(ready(s))), to: p, tag: tag)
        log(.info, "\(s.name) shares a \(c.source.name) (\(c.codec.name) \(c.width)x\(c.height), \(c.frameRate) fps)\(slot == nil ? ", waiting for the moderator" : "")")
        pushState(prompt: true)
    }

    /// Where a new share of `me` goes, by the floor's rules (§29.3); nil: it waits for the
    /// moderator. The floor and the panes change here as they would for present/wall-add.
    private mutating func shareSlot(for me: DeviceID, placement: SharePlacement) throws -> ShareBoard.Slot? {
        let moderator = floor.role(of: me) == .moderator
        if wall.pane(drivenBy: me) != nil { return .driven }
        if placement == .beside, moderator || config.floor == .open {
            if floor.driver == me || (moderator && floor.driver == nil && shares.main == nil && mainPaneEmpty) { return try mainSlot(for: me) }
            if try placeBeside(me) { return .driven }
        }
        if floor.driver == me || moderator { return try mainSlot(for: me) }
        if config.floor == .open {
            // As present in an open room: the sender takes the floor (the newer request wins).
            apply(try floor.requestFloor(by: me, now: now).events)
            if floor.driver == me { return try mainSlot(for: me) }
        }
        return nil
    }

    /// The main pane for `me`'s share: a moderator's takes it from another share (ended as
    /// replaced); the floor's driver finds it taken only by a moderator's share.
    private mutating func mainSlot(for me: DeviceID) throws -> ShareBoard.Slot {
        if let other = shares.main, other.device != me {
            guard floor.role(of: me) == .moderator else {
                throw LecternError.shareBusy(pane: wall.mainIndex, by: other.name)
            }
            endShare(other.device, telling: .shareReplaced)
        }
        return .main
    }

    /// A pane of its own for `me` beside what the wall shows (as wall-add, §9.7): the first
    /// free pane, the layout growing when none is. False: the wall is full.
    private mutating func placeBeside(_ me: DeviceID) throws -> Bool {
        guard let i = wall.freePane ?? grownPaneForShare() else { throw LecternError.wallFull }
        wall.setDriver(me, of: i)
        changePane(i, .idle, reply: nil)
        return true
    }

    private mutating func grownPaneForShare() -> Int? {
        guard let l = wall.grown else { return nil }
        for var q in wall.setLayout(l).compactMap(\.queue) {
            for op in q.abandonAll() { answer(op.reply, Self.overtaken(op)) }
        }
        return wall.freePane
    }

    private var mainPaneEmpty: Bool { screen.running == nil && screen.clip == nil && screen.committed == .idle }

    /// The share goes on the wall in `slot`: a clip in the main pane stops (anything else on
    /// the screen ends a clip), the wall shows it.
    private mutating func goLive(_ share: ShareBoard.Share, in slot: ShareBoard.Slot) -> ShareBoard.Share {
        var s = share
        s.slot = slot
        s.liveSince = now
        shares[s.device] = s
        recordShareStarted(s)
        if slot == .main, let c = screen.clip { emit(.steerClip(serial: c.serial, .stop)) }
        shareWallChanged(s)
        return s
    }

    private func ready(_ s: ShareBoard.Share) -> ShareReady {
        ShareReady(
            status: s.slot == nil ? .waiting : .live, pane: sharePane(s), frameRate: s.config.frameRate, bitrate: s.config.bitrate)
    }

    // MARK: share-control, share-moderate

    private mutating func shareControl(_ a: ShareAction, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        guard var s = shares[me] else { throw LecternError.noShare }
        switch a {
        case .pause, .resume:
            send(.ok, to: p, tag: tag)
            guard s.paused != (a == .pause) else { return }
            s.paused = a == .pause
            shares[me] = s
            shareWallChanged(s)
            pushState(prompt: true)
        case .stop:
            send(.ok, to: p, tag: tag)
            endShare(me, telling: nil)
        }
    }

    private mutating func shareModerate(_ d: DeviceID, _ action: ShareModeration, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        guard floor.role(of: me) == .moderator else { throw LecternError.moderatorOnly }
        guard let s = shares[d] else { throw LecternError.noShare }
        switch action {
        case .end:
            send(.ok, to: p, tag: tag)
            log(.info, "the moderator ended \(s.name)'s share")
            endShare(d, telling: .shareWithdrawn)
        case .approve, .approveBeside:
            guard s.slot == nil else { throw LecternError.shareNotWaiting }
            let slot: ShareBoard.Slot
            if action == .approve {
                // Into the main pane: the sharer gets the floor, as a granted request does.
                apply(try floor.moderate(.grant, target: d, by: me, now: now))
                slot = .main
                if let other = shares.main, other.device != d { endShare(other.device, telling: .shareReplaced) }
            } else {
                guard try placeBeside(d) else { throw LecternError.wallFull }
                slot = .driven
            }
            send(.ok, to: p, tag: tag)
            guard let waiting = shares[d] else { return }
            let live = goLive(waiting, in: slot)
            if let sp = peer(of: d) { send(.share(.ready(ready(live))), to: sp, tag: 0) }
            pushState(prompt: true)
        }
    }

    // MARK: ending

    /// Ends `device`'s share: its decoder stops, its pane shows what the pane's screen shows
    /// under it (§29.4); the sharer hears why unless it stopped the share itself (nil).
    /// `push` false: the floor change that ends it pushes the state (one transition, one
    /// snapshot, §14.1).
    mutating func endShare(_ device: DeviceID, telling why: LecternError?, push: Bool = true) {
        guard let s = shares.remove(device) else { return }
        recordShareEnded(s)
        emit(.shareStop(serial: s.serial))
        // Its ink goes with it (never saved, §29.8).
        let inked = InkPageRef(content: ShareInk.content, page: s.serial)
        _ = ink.remove(page: inked)
        showInk(on: inked)
        if let why, let p = peer(of: device) { send(.share(.ended(why)), to: p, tag: 0) }
        log(.info, "\(s.name)'s share ended\(why.map { ": \($0.message)" } ?? "")")
        // The pane shows its screen again, whether or not the change that ended it shows anything.
        if s.slot != nil { shareWallChanged(nil) }
        if push { pushState(prompt: true) }
    }

    /// A screen change in the main pane (a page, a clear, the idle screen of a floor change)
    /// ends the share there, as it ends a clip.
    mutating func mainScreenChanging() {
        if let s = shares.main { endShare(s.device, telling: .shareReplaced, push: false) }
    }

    /// The same for pane `i` other than the main one.
    mutating func paneScreenChanging(_ i: Int) {
        guard let d = wall.panes[i].driver, let s = shares[d], s.slot == .driven else { return }
        endShare(d, telling: .shareReplaced)
    }

    /// The stream of share `serial` failed: it ends, and its sharer is told why.
    mutating func shareFailed(serial: Int, _ error: LecternError) {
        guard let s = shares.share(serial: serial) else { return }
        log(.warning, "\(s.name)'s share failed: \(error.message)")
        endShare(s.device, telling: error)
    }

    /// The sharer's connection closed: a device still in the room (the floor holder in its
    /// grace period, §9.6) keeps its share on the wall, held on its last picture and marked
    /// paused, until it comes back (and begins again) or leaves.
    mutating func shareConnectionClosed(_ id: ConnectionID) {
        guard var s = shares.share(connection: id) else { return }
        s.connection = nil
        shares[s.device] = s
        emit(.shareRoute(serial: s.serial, connection: nil, device: s.device))
        guard floor.devices[s.device] != nil else { return }
        if s.slot == nil {
            // A waiting share needs its sharer.
            endShare(s.device, telling: nil)
        } else {
            shareWallChanged(s)
        }
    }

    /// The device left the room: its share ends.
    mutating func shareDeviceLeft(_ d: DeviceID) { endShare(d, telling: nil) }

    /// After every event: a share whose pane is no longer its sharer's (the floor changed
    /// hands, the pane was dropped or handed to someone else) ends.
    mutating func reconcileShares() {
        for s in shares.ordered where s.slot != nil && sharePane(s) == nil {
            endShare(s.device, telling: .shareReplaced)
        }
    }

    // MARK: the wall and the state

    /// The pane `s` shows in now (nil: waiting, or its slot is gone).
    func sharePane(_ s: ShareBoard.Share) -> Int? {
        switch s.slot {
        case nil: return nil
        case .main:
            return floor.driver == s.device || floor.role(of: s.device) == .moderator || floor.holder == s.device ? wall.mainIndex : nil
        case .driven: return wall.pane(drivenBy: s.device)
        }
    }

    /// What pane `i` shows when a share is there.
    func shareContent(ofPane i: Int) -> PaneContent? {
        for s in shares.ordered where s.slot != nil && sharePane(s) == i {
            return .share(serial: s.serial, paused: s.held)
        }
        return nil
    }

    /// A share came, went or changed: the wall shows it (`s` nil: a share left the wall).
    mutating func shareWallChanged(_ s: ShareBoard.Share?) {
        if let s, s.slot == nil { return }
        syncOpIDs()
        emit(wallEffect(op: wall.nextWallOp()))
    }

    /// The main screen's card over the share in the main pane (a card is an overlay, §29.4).
    func cardsOverShares(main: PaneContent) -> [Int: WallCard] {
        guard case .share = main else { return [:] }
        let m = screen.running?.target ?? screen.committed
        guard let card = m.card, m.blank == .none else { return [:] }
        return [wall.mainIndex: card]
    }

    /// The state's `shares`.
    func sharesSnapshot() -> [ShareSnapshot]? {
        let list = shares.ordered.map { s in
            ShareSnapshot(
                device: s.device, name: s.name,
                status: s.slot == nil ? .waiting : s.connection == nil ? .away : s.paused ? .paused : .live,
                pane: sharePane(s), source: s.config.source.name, codec: s.config.codec.name,
                width: Int(s.config.width), height: Int(s.config.height),
                liveMs: s.liveSince.map { UInt64(max(0, now - $0) * 1000) } ?? 0)
        }
        return list.isEmpty ? nil : list
    }

    /// The layout's panes with the share each shows.
    func withShares(_ layout: LayoutSnapshot) -> LayoutSnapshot {
        var l = layout
        for s in shares.ordered {
            if let i = sharePane(s), i < l.panes.count { l.panes[i].share = s.device }
        }
        return l
    }
}
