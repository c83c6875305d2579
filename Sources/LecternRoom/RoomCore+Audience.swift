import LecternModel
import LecternProtocol

/// The audience in the room: viewers register, follow the state, answer polls and ask
/// questions; the floor's driver or the moderator runs polls, questions and the lock.
extension RoomCore {
    // MARK: registration

    mutating func registerViewer(_ r: RegisterRequest, from p: Peer, tag: UInt16) {
        let req = Command.register.rawValue
        if keys.audienceMode == .off { return fail(p, tag: tag, .roleUnavailable(.viewer), request: req) }
        if keys.audienceMode == .passcode {
            let tkey = AuthThrottle.key(address: p.address, role: .viewer)
            if case .wait(let s) = throttle.attempt(tkey, role: .viewer, now: now) {
                log(.warning, "register from \(p.address) as viewer throttled: \(Int(s.rounded(.up))) s to wait")
                return fail(p, tag: tag, .tooManyAttempts(retryAfter: s), request: req)
            }
            let ok =
                RegisterProof.verify(r, challenge: p.challenge, key: keys.presenter)
                || keys.audience.map { RegisterProof.verify(r, challenge: p.challenge, key: $0) } == true
            guard ok else {
                throttle.recordFailure(tkey, role: .viewer, now: now)
                log(.warning, "wrong audience passcode from \(p.address)")
                return fail(p, tag: tag, .wrongPasscode, request: req)
            }
            throttle.recordSuccess(tkey, now: now)
        }
        // A person is its device token: a fresh one is rationed per address (§24.1).
        if audience.viewers.count >= audience.viewers.capacity {
            return fail(p, tag: tag, .audienceFull(audience.viewers.capacity), request: req)
        }
        if !audience.viewers.knows(r.resumeToken) {
            if audience.joins.burst != config.audienceNewPerAddress {
                audience.joins = AudienceJoinBudget(burst: config.audienceNewPerAddress, refillSeconds: AudienceLimits.newViewerSeconds)
            }
            if let wait = audience.joins.take(p.address, now: now) {
                log(.info, "new viewer from \(p.address) refused: \(audience.joins.burst) new this meeting already, next in \(Int(wait.rounded(.up))) s")
                var e = LecternError.slowDown(retryAfter: wait)
                e.message = "Too many new phones from your network at once — try again in \(max(1, Int(wait.rounded(.up)))) s."
                return fail(p, tag: tag, e, request: req)
            }
        }
        do {
            // A copy of the generator draws while the audience changes (put back at once).
            var random = self.random
            let joined = Result { () throws(LecternError) in try audience.viewers.join(p.id, name: r.name, token: r.resumeToken, fresh: { random.token() }) }
            self.random = random
            let (v, resumed) = try joined.get()
            peers[p.id]?.viewer = v
            emit(.registered(p.id))
            screenCodeRegistered(p.id)
            send(.registerOK(RegisterOK(deviceID: ProtocolLimits.unregisteredID, role: .viewer, resumed: resumed, floorRestored: false, resumeToken: v.token)), to: p, tag: tag)
            log(.debug, "viewer '\(v.name)' joined from \(p.address)\(resumed ? " (again)" : "")")
            send(.state(viewerSnapshot(now: now)), to: p, tag: 0)
            peers[p.id]?.statePacer.sent(now: now)
            pushState(viewers: false)
            if !resumed { persist() }
        } catch {
            fail(p, tag: tag, error, request: req)
        }
    }

    mutating func viewerLeft(_ p: Peer) {
        guard p.viewer != nil else { return }
        audience.viewers.leave(p.id)
        peers[p.id]?.viewer = nil
        pushState(viewers: false)
    }

    // MARK: requests

    /// What a viewer may send: state-request, poll answers, questions and votes.
    mutating func viewerRequest(_ message: Message, command: UInt8, from p: Peer, viewer v: Audience.Viewer, tag: UInt16) throws {
        switch message {
        case .stateRequest: send(.state(viewerSnapshot(now: now)), to: p, tag: tag)
        case .audienceFetch(let f): try audienceFetch(f, privileged: false, peer: p, tag: tag)
        case .pagePreview(let r): try viewerPage(r, peer: p, tag: tag)
        case .ink(.fetch(let content, let page)):
            // The ink of the page on the wall (of any page of its deck once unlocked), read-only.
            guard let live = inkPageOnScreen else { throw LecternError.nothingToInk }
            let ref = content.map { InkPageRef(content: $0.hex, page: Int(page)) } ?? live
            guard ref == live || (!audience.navigation.locked && ref.content == live.content) else {
                throw LecternError.viewerNotAllowed(command)
            }
            send(.ink(.page(ink.strokes(on: ref))), to: p, tag: tag)
        case .share(.picture(let d, let w, let h)): try viewerSharePicture(of: d, maxWidth: Int(w), maxHeight: Int(h), peer: p, tag: tag)
        case .pollAnswer, .questionAsk, .questionVote:
            try audienceRequest(message, from: p, voter: v.voter, name: v.name, tag: tag)
        default:
            guard Command(rawValue: command) != nil else { throw LecternError.unknownCommand(command) }
            throw LecternError.viewerNotAllowed(command)
        }
    }

    /// A viewer's picture of the slide: only the deck on the wall, not while it is blanked;
    /// the live page while locked, any page of it once unlocked; never the notes half.
    /// Rendered at the device's size by the same pipeline, from the page cache when there.
    mutating func viewerPage(_ r: PagePreviewRequest, peer p: Peer, tag: UInt16) throws {
        let live = screen.committed
        guard let c = live.content, c.id == r.content, c.kind == .pdf, live.blank == .none, screen.clip == nil else {
            throw LecternError(.notYourContent, message: "Viewers see the slide on the wall, and only while it is shown.")
        }
        guard !r.notesHalf else { throw LecternError.notesPrivate }
        let page = max(1, Int(r.page))
        guard page <= live.pageCount else { throw LecternError.pageOutOfRange(page: UInt32(page), pageCount: UInt32(live.pageCount)) }
        guard page == live.page || !audience.navigation.locked else {
            throw LecternError(.viewerNotAllowed, detail: UInt64(Command.pagePreview.rawValue), message: "The presenter has locked navigation: you follow the live page.")
        }
        try takePictureSlot(p, tag: tag, maxWidth: Int(r.maxWidth), maxHeight: Int(r.maxHeight))
        emit(.renderPreview(p.id, tag: tag, content: r.content.hex, page: page, maxWidth: Int(r.maxWidth), maxHeight: Int(r.maxHeight), part: live.part))
    }

    /// A page of what the state only summarises (§24.6): questions (viewers: not the hidden
    /// ones), or a poll's open-text answers (the presenters and moderator only).
    mutating func audienceFetch(_ f: AudienceFetch, privileged: Bool, peer p: Peer, tag: UInt16) throws {
        let count = Int(f.count == 0 ? UInt16(AudienceLimits.maxFetch) : min(f.count, UInt16(AudienceLimits.maxFetch)))
        let page: AudiencePage
        switch f.what {
        case .questions:
            let (qs, total) = audience.questions.page(privileged: privileged, offset: Int(f.offset), count: count)
            page = AudiencePage(what: "questions", poll: nil, offset: Int(f.offset), total: total, questions: qs, texts: nil)
        case .texts:
            guard privileged else { throw LecternError.viewerNotAllowed(Command.audienceFetch.rawValue) }
            let poll = try audience.polls.poll(f.poll)
            let (ts, total) = poll.textPage(offset: Int(f.offset), count: count)
            page = AudiencePage(what: "texts", poll: poll.id, offset: Int(f.offset), total: total, questions: nil, texts: ts)
        }
        send(.audiencePage(page), to: p, tag: tag)
    }

    /// The voter key of a floor device: a hash of its resume token, as for viewers.
    func voter(of device: DeviceID) -> String {
        floor.devices[device].map { Audience.voterKey($0.resumeToken) } ?? "device-\(device)"
    }

    /// The audience's requests from anyone registered (`voter`: the device's identity).
    /// Returns false when `message` is not one of them.
    @discardableResult
    mutating func audienceRequest(_ message: Message, from p: Peer, voter: String, name: String, tag: UInt16) throws -> Bool {
        if case .audienceSet(.endMeeting) = message, let me = p.deviceID {
            // The whole room's meeting ends (§27), answered before everyone is let go.
            try endMeetingRequest(by: me, peer: p, tag: tag)
            return true
        }
        switch message {
        case .pollAnswer(let poll, let a):
            try audience.polls.answer(poll, a, voter: voter)
        case .questionAsk(let text, let named):
            try audience.questions.ask(text, name: named ? name : nil, voter: voter, now: now)
        case .questionVote(let id):
            try audience.questions.vote(id, voter: voter)
        case .pollAsk, .pollClose, .pollShow, .questionMark, .audienceSet, .pollPrepare, .pollAskPrepared:
            guard let me = p.deviceID else { throw LecternError.viewerNotAllowed(message.command.rawValue) }
            try requireAudienceHost(me)
            switch message {
            case .pollAsk(let d):
                let id = try audience.polls.ask(d)
                updateWallCard()
                log(.info, "poll \(id) asked (\(d.kind.rawValue), \(d.answers.count) answers)")
            case .pollClose(let poll): try audience.polls.close(poll)
            case .pollShow(let s):
                try audience.polls.show(s)
                updateWallCard()
            case .questionMark(let id, let action):
                try audience.questions.mark(id, action)
                updateWallCard()
            case .audienceSet(let s): try audienceSet(s, by: me)
            case .pollPrepare(let content, let drafts):
                guard let e = catalog[content], e.kind == .pdf else { throw LecternError.badPoll("Polls are prepared with a deck (a PDF) in the store.") }
                try audience.prepared.set(drafts, for: content.hex)
                log(.info, "\(drafts.count) poll(s) prepared with \(e.name)")
            case .pollAskPrepared(let content, let index):
                guard let deck = content?.hex ?? screen.committed.content?.id.hex else { throw LecternError.noSuchPoll }
                let id = try audience.polls.ask(try audience.prepared.draft(index, for: deck))
                updateWallCard()
                log(.info, "prepared poll \(index + 1) asked as poll \(id)")
            default: break
            }
        default:
            return false
        }
        send(.ok, to: p, tag: tag)
        // An answer changes only what the presenters and moderator see, and is paced.
        if case .pollAnswer = message {
            if now - audience.lastResultsPush >= AudienceRoom.resultsInterval { pushResults() } else { audience.resultsPushOwed = true }
        } else {
            pushState()
        }
        persist()
        return true
    }

    /// Polls, questions on the wall and the lock: the floor's driver or the moderator.
    private func requireAudienceHost(_ me: DeviceID) throws(LecternError) {
        guard floor.canDriveScreen(me) else { throw .audienceOnly }
    }

    private mutating func audienceSet(_ s: AudienceSetting, by me: DeviceID) throws(LecternError) {
        switch s {
        case .lock: audience.navigation.locked = true
        case .unlock: audience.navigation.locked = false
        case .allowDownload:
            if !audience.navigation.download { audience.navigation.downloadToken = random.hex(16) }
            audience.navigation.download = true
        case .revokeDownload:
            audience.navigation.download = false
            audience.navigation.downloadToken = nil
        case .endMeeting:
            break   // the whole room's: `endMeetingRequest`, before this (§27)
        }
    }

    // MARK: the wall

    /// What the wall shows over the page: the question put there, else the results of the
    /// current poll once shown (the correct bar green once revealed). Never a name.
    var wallCard: WallCard? {
        if let q = audience.questions.wallQuestion { return WallCard(title: "Question from the audience", lines: [q.text]) }
        guard let p = audience.polls.onWall else { return nil }
        if p.draft.kind == .text {
            let texts = p.texts
            return WallCard(title: p.draft.question, lines: p.picks.compactMap { $0 < texts.count ? texts[$0] : nil })
        }
        let counts = p.counts
        return WallCard(
            title: p.draft.question,
            bars: p.draft.answers.enumerated().map { i, a in
                WallCard.Bar(label: a, count: counts[i], highlighted: p.showAnswer && p.draft.correct == i)
            })
    }

    /// Puts the card on the wall, or takes it off, when it changed.
    mutating func updateWallCard() {
        let card = wallCard
        recordPoll(card)
        guard card != screen.committed.card || screen.running != nil else { return }
        changeScreen(.card(card), reply: nil)
    }

    /// The deck viewers may download now, or nil (told to the shell: `announceServed`).
    var downloadOffer: DownloadOffer? {
        guard audience.navigation.download, let t = audience.navigation.downloadToken,
            let c = screen.committed.content, c.kind == .pdf
        else { return nil }
        return DownloadOffer(token: t, content: c.id.hex, name: c.name)
    }

    // MARK: the state

    func audienceSnapshot(privileged: Bool) -> AudienceSnapshot? {
        if keys.audienceMode == .off && !audience.hasMeeting { return nil }
        // What grows with the audience is summarised: the first questions and a count (§24.6).
        let ranked = audience.questions.ranked(privileged: privileged)
        var snapshot = AudienceSnapshot(
            viewers: audience.count, locked: audience.navigation.locked, download: audience.navigation.download,
            downloadURL: downloadOffer.map { "/download/\($0.token)" }, pageImage: pageImagePath,
            poll: audience.polls.current?.snapshot(privileged: privileged),
            questions: Array(ranked.prefix(AudienceLimits.stateQuestions)), wallQuestion: audience.questions.onWall)
        snapshot.questionCount = ranked.count
        if privileged, let c = screen.committed.content, c.kind == .pdf { snapshot.prepared = audience.prepared.drafts(for: c.id.hex) }
        return snapshot
    }

    /// The state a viewer gets: everyone's state (§24.2) without device names, the audience filtered.
    func viewerSnapshot(now: Double) -> Snapshot {
        var s = snapshot(now: now)
        s.devices = []
        s.audience = audienceSnapshot(privileged: false)
        s.conversions = nil   // file names being converted are the presenters' business (§30.4)
        return s
    }

    /// The newest state for this peer: a viewer never gets the presenters' copy.
    mutating func stateBytes(for p: Peer) -> [UInt8] {
        if let own = paneStateBytes(for: p) { return own }
        guard p.viewer != nil else {
            if pushes.stale || pushes.latest.isEmpty {
                pushes.latest = Message.state(snapshot(now: now)).encode(tag: 0, deviceID: 0)
                pushes.stale = false
            }
            return pushes.latest
        }
        if pushes.viewerStale || pushes.latestViewer.isEmpty {
            pushes.latestViewer = Message.state(viewerSnapshot(now: now)).encode(tag: 0, deviceID: ProtocolLimits.unregisteredID)
            pushes.viewerStale = false
        }
        return pushes.latestViewer
    }

    mutating func pushResults() {
        audience.lastResultsPush = now
        audience.resultsPushOwed = false
        pushState(viewers: false)
    }

    /// Every tick: live results owed go out. (The meeting's idle end: `meetingTick`, §27.)
    mutating func audienceTick() {
        if audience.resultsPushOwed { pushResults() }
    }
}
