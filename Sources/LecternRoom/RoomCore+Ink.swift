import LecternModel
import LecternProtocol

/// The pointer and shared ink (docs/protocol.md §22): who may point and draw is decided
/// here from the floor; the strokes are the `InkBoard`'s; the wall gets what to draw as
/// `inkPage` and `pointer` effects.
extension RoomCore {
    /// The page on screen, if ink can go on what is shown (a PDF page, no clip, not blanked),
    /// or the live share in the main pane (its pane's coordinates, §29.8).
    var inkPageOnScreen: InkPageRef? {
        if case .share(let serial, _)? = shareContent(ofPane: wall.mainIndex) { return InkPageRef(content: ShareInk.content, page: serial) }
        guard screen.clip == nil else { return nil }
        switch screen.committed.baseScene {   // under a poll's card (§24) too
        case .page(let content, let page), .pagePart(let content, let page, _): return InkPageRef(content: content, page: page)
        default: return nil
        }
    }

    /// The page `device`'s ink and pointer go on (§9.7, §22): the page (or live share) of the
    /// pane it drives, if it drives one besides the main pane; else the main pane's.
    func inkPage(for device: DeviceID) -> InkPageRef? {
        guard let i = wall.pane(drivenBy: device), let q = wall.panes[i].queue else { return inkPageOnScreen }
        if case .share(let serial, _)? = shareContent(ofPane: i) { return InkPageRef(content: ShareInk.content, page: serial) }
        guard q.clip == nil else { return nil }
        switch q.committed.baseScene {
        case .page(let content, let page), .pagePart(let content, let page, _): return InkPageRef(content: content, page: page)
        default: return nil
        }
    }

    /// Whether `device` holds (or drives) the floor, or is the moderator.
    func isLead(_ device: DeviceID) -> Bool { floor.isLead(device) }

    /// Whether `device` leads the page it inks on: the floor's lead on the main pane, a
    /// pane's driver on its own pane.
    func leadsInk(_ device: DeviceID) -> Bool { isLead(device) || wall.pane(drivenBy: device) != nil }

    func who(_ device: DeviceID) -> InkBoard.Who {
        InkBoard.Who(device: device, lead: isLead(device), everyoneDraws: config.inkEveryone)
    }

    /// As `who`, for drawing on and clearing the page `device` inks on.
    func inkWho(_ device: DeviceID) -> InkBoard.Who {
        InkBoard.Who(device: device, lead: leadsInk(device), everyoneDraws: config.inkEveryone)
    }

    mutating func inkRequest(_ m: InkMessage, command: UInt8, from p: Peer, device me: DeviceID, tag: UInt16) throws {
        switch m {
        case .pointer(let point, let lifted):
            guard leadsInk(me) else { throw LecternError.leadOnly }
            guard let page = inkPage(for: me) else { throw LecternError.nothingToInk }
            emit(.pointer(me, page: page, point, lifted: lifted))
            // Viewers follow pages (the main pane's pointer); a share reaches them as pictures
            // (§29.8), with the ink drawn in.
            if !ShareInk.isShare(page.content), wall.pane(drivenBy: me) == nil { pointToViewers(page: page.page, point, lifted: lifted) }
        case .strokeBegin(let b):
            guard let page = inkPage(for: me) else { throw LecternError.nothingToInk }
            let before = ink.slots
            let unfinished = ink.openPage(of: me)
            let allowed = ink.allowed, everyone = config.inkEveryone   // not read from inside its own mutation
            try ink.begin(
                inkWho(me), on: page, tool: b.tool, width: b.width, colorIndex: b.colorIndex, points: b.points,
                stillDrawing: { [self] d in floor.devices[d]?.isConnected == true && (leadsInk(d) || everyone || allowed.contains(d)) })
            if let unfinished { inkChanged(unfinished) }   // the stroke left open was finished
            showInk(on: page)
            if before != ink.slots && unfinished == nil { pushState() }
        case .strokePoints(let points):
            showInk(on: try ink.append(me, points: points))
        case .strokeEnd(let points):
            let page = ink.openPage(of: me)
            let stroke: InkStroke
            do { stroke = try ink.end(me, points: points) } catch {
                // Too many points at the end: the stroke is kept as it was, and the error told.
                if let page, error.code != .noStroke { _ = try? ink.end(me, points: []); inkChanged(page) }
                throw error
            }
            let onPage = page.map { ink.strokes(on: $0).count } ?? 0
            send(.ink(.strokeOK(StrokeOK(strokeID: stroke.id, strokesOnPage: UInt16(clamping: onPage)))), to: p, tag: tag)
            if let page { inkChanged(page) }
        case .undo:
            guard let page = inkPage(for: me) else { throw LecternError.nothingToInk }
            _ = try ink.undo(me, on: page)
            send(.ok, to: p, tag: tag)
            inkChanged(page)
        case .erase:
            guard let page = inkPage(for: me) else { throw LecternError.nothingToInk }
            _ = try ink.erase(me, on: page)
            send(.ok, to: p, tag: tag)
            inkChanged(page)
        case .clear(let deck):
            guard let page = inkPage(for: me) else { throw LecternError.nothingToInk }
            let touched = deck ? Set(ink.pages.keys.filter { $0.content == page.content }).union([page]) : [page]
            let n = deck ? try ink.clear(inkWho(me), deck: page.content) : try ink.clear(inkWho(me), page: page)
            send(.ok, to: p, tag: tag)
            log(.info, "ink cleared by device \(me): \(n) stroke\(n == 1 ? "" : "s") on \(deck ? "the deck" : "page \(page.page)")")
            for t in touched.sorted() { showInk(on: t) }
            pushState()
            persist()
        case .allow(let target, let on):
            guard floor.devices[target] != nil else { throw LecternError.noSuchDevice(target) }
            try ink.allow(who(me), target, on)
            send(.ok, to: p, tag: tag)
            pushState()
            persist()
        case .fetch(let content, let page):
            let ref: InkPageRef
            if let content {
                ref = InkPageRef(content: content.hex, page: Int(page))
            } else {
                guard let onScreen = inkPage(for: me) else { throw LecternError.nothingToInk }
                ref = onScreen
            }
            send(.ink(.page(ink.strokes(on: ref))), to: p, tag: tag)
        case .whiteboard(let black):
            try newWhiteboard(black: black, by: me, peer: p, tag: tag)
        case .strokeOK, .page:
            throw LecternError.unknownCommand(command)
        }
    }

    /// Takes the stage's boxes (pane order); whether one a device maps its ink with changed.
    @discardableResult
    mutating func setPageBoxes(_ boxes: [InkSnapshot.Box?]) -> Bool {
        let main = boxes.indices.contains(wall.mainIndex) ? boxes[wall.mainIndex] : nil
        let before = (pageBox, paneBoxes)
        pageBox = main
        paneBoxes = boxes
        return before.0 != pageBox && inkPageOnScreen != nil || before.1 != paneBoxes && !wall.isSinglePane
    }

    /// The `ink.box` `device` maps its touches with: its pane's page box when it drives a
    /// pane besides the main one and ink can go there; the main pane's otherwise.
    func inkBox(for device: DeviceID) -> InkSnapshot.Box? {
        guard let i = wall.pane(drivenBy: device) else { return inkPageOnScreen == nil ? nil : pageBox }
        guard inkPage(for: device) != nil, paneBoxes.indices.contains(i) else { return nil }
        return paneBoxes[i]
    }

    /// A page's ink changed for good: the wall redraws it, devices see the counts, it is saved.
    mutating func inkChanged(_ page: InkPageRef) {
        showInk(on: page)
        pushState()
        persist()
    }

    /// Tells the wall what to draw on `page`.
    mutating func showInk(on page: InkPageRef) { emit(.inkPage(page, ink.layer(for: page))) }

    /// Every page's ink, for the wall (after a restart).
    mutating func showAllInk() {
        for page in ink.pages.keys.sorted() { showInk(on: page) }
    }

    /// A device left the room: its stroke in progress is kept, its colour and permission go.
    mutating func inkDeviceLeft(_ id: DeviceID) {
        let page = ink.openPage(of: id)
        let hadPermission = ink.allowed.contains(id) || ink.slots.contains(id)
        ink.forget(id)
        if let page { showInk(on: page) }
        if hadPermission || page != nil { persist() }
    }

    var inkSnapshot: InkSnapshot {
        InkSnapshot(
            pages: ink.pages.keys.sorted().map { InkSnapshot.Page(content: $0.content, page: $0.page, strokes: ink.pages[$0]!.count) },
            drawers: ink.slots.enumerated().compactMap { i, d in
                d.map { InkSnapshot.Drawer(device: $0, color: InkPalette.drawerColor(slot: i).description) }
            },
            allowed: ink.allowed.sorted(), everyone: config.inkEveryone, strokes: ink.strokeCount, points: ink.totalPoints,
            box: inkPageOnScreen == nil ? nil : pageBox, whiteboards: whiteboardCounts ?? [0, 0])
    }
}
