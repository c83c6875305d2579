import LecternModel
import LecternProtocol

/// The meeting (docs/protocol.md §27): the one place that says when it starts and ends
/// and what belongs to it. What belongs to a meeting — the polls, answers and questions,
/// viewers' identities, the navigation lock and the download offer (§24), the meeting
/// record (§26), all ink on decks and whiteboards and the whiteboards themselves (§22),
/// the typed notes of presenters (§20.2), the talk timer, the floor and its queue, and
/// (with `uploads_kept = "meeting"`) the presenters' uploads — goes when it ends, from
/// memory and from `data_dir`. A deck's `.pdfpc` notes, its own annotations and its
/// prepared polls are the file's: they stay while the file does.
extension RoomCore {
    /// A fresh meeting id: 16 random bytes, hex.
    mutating func newMeetingID() -> String { random.hex(16) }

    /// The device ids of the connections that declared themselves wall displays.
    var wallDevices: Set<DeviceID> { Set(peers.values.filter { $0.isWall && !$0.closing }.compactMap(\.deviceID)) }

    /// Whether a person is in the room: a registered device or viewer (a wall view is
    /// none), or a device waiting in its grace period (the floor's holder, a pane's driver).
    var peopleInRoom: Bool {
        if peers.values.contains(where: { $0.isRegistered && !$0.closing && !$0.isWall }) { return true }
        let walls = wallDevices
        return floor.devices.values.contains { !$0.isConnected && !walls.contains($0.id) }
    }

    /// Anything of a meeting kept, whether or not one started (a state from an older version).
    var meetingLeftovers: Bool {
        audience.hasMeeting || !record.isEmpty || !ink.pages.isEmpty || whiteboardCounts != nil
    }

    /// Every tick: a meeting starts with its first person, and ends once the room has had
    /// nobody in it for `audience_idle_minutes`.
    mutating func meetingTick() {
        let step = meeting.occupancy(
            people: peopleInRoom, leftovers: meetingLeftovers, now: now, wallClock: wallTime,
            idleSeconds: Double(config.audienceIdleMinutes) * 60)
        switch step {
        case .none: break
        case .started:
            log(.info, "a meeting started")
            persist()
        case .idleEnd:
            endMeeting(why: "the room was empty for \(config.audienceIdleMinutes) min")
        }
    }

    /// wall-view (§27): this connection shows the wall; it is no person in the room.
    mutating func declareWall(_ p: Peer, tag: UInt16) {
        peers[p.id]?.isWall = true
        send(.ok, to: p, tag: tag)
        log(.debug, "connection \(p.id) is a wall view")
    }

    /// End meeting (audience-set 5): the moderator's; in a room without a moderator
    /// passcode, whoever drives the screen. Answered ok, then the meeting ends.
    mutating func endMeetingRequest(by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        if keys.moderator != nil {
            guard floor.role(of: me) == .moderator else { throw LecternError.moderatorOnly }
        } else {
            guard floor.canDriveScreen(me) else { throw LecternError.audienceOnly }
        }
        send(.ok, to: p, tag: tag)
        endMeeting(why: "ended by '\(floor.name(of: me) ?? "device \(me)")'")
    }

    /// The meeting ends: every person's connection is told (`meetingEnded`) and closed, a
    /// wall view stays and shows the idle screen; everything of the meeting is dropped and
    /// the saved state written without it; the next meeting has a new id.
    mutating func endMeeting(why: String) {
        // What belonged to the meeting goes first, so no push or save after this has it.
        audience.endMeeting()
        record.clear()
        emit(.clearRecordFrames(directory: recordFramesDirectory))
        let inked = ink.pages.keys.sorted()
        ink = InkBoard(limits: ink.limits)
        for page in inked { showInk(on: page) }   // the wall forgets each page's layer
        for black in [false, true] { catalog.remove(ContentID(hex: Whiteboard.hex(black: black))!) }
        timer = TalkTimer(warnMinutes: config.timerWarningMinutes)
        clearTypedNotes()
        let removed = removeMeetingUploads()
        meeting.ended(nextID: newMeetingID(), now: now)
        // Everyone but the wall views leaves, told why; the screen goes idle.
        for p in peers.values.sorted(by: { $0.id < $1.id }) where p.viewer != nil && !p.closing {
            send(.error(.meetingEnded), to: p, tag: 0)
            audience.viewers.leave(p.id)
            peers[p.id]?.viewer = nil
            close(p)
        }
        apply(floor.endMeeting(keeping: wallDevices, now: now))
        log(
            .info,
            "the meeting ended (\(why)): polls, questions, the record, ink, whiteboards, typed notes\(removed > 0 ? " and \(removed) upload\(removed == 1 ? "" : "s")" : "") cleared"
        )
        pushState(prompt: true)
        persist()
    }

    /// Typed notes are their presenter's, for the meeting; a `.pdfpc` file's stay with the deck.
    private mutating func clearTypedNotes() {
        for e in catalog.all where e.kind == .pdf && e.deck.notes.typed != nil {
            var notes = e.deck.notes
            notes.typed = nil
            catalog.setNotes(notes, for: e.id)
            notesRevision += 1
            emit(.saveNotes(e.id, notes))
        }
    }

    /// Presenters' uploads, as `uploads_kept` says: all of them ("meeting"), or those
    /// stored on an earlier day (UTC) than today ("day"). Returns how many went.
    private mutating func removeMeetingUploads() -> Int {
        let today = (wallTime / 86_400).rounded(.down)
        var n = 0
        for e in catalog.all where Whiteboard.background(e.id.hex) == nil {
            if config.uploadsKept == .day, (e.storedAt / 86_400).rounded(.down) >= today { continue }
            catalog.remove(e.id)
            audience.prepared.remove(e.id.hex)
            ledger.storeBytes -= min(ledger.storeBytes, e.size + e.convertedBytes)
            emit(.removeUpload(e.id))
            n += 1
        }
        // Files still converting are the meeting's too: stopped, their originals removed.
        if config.uploadsKept != .day { n += stopConversions("the meeting ended") }
        return n
    }
}
