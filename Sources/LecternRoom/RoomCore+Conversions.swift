import LecternProtocol

/// Converted files (docs/protocol.md §30): an upload that is neither a PDF nor a clip is
/// stored as it came (upload-finish is then answered with conversion-progress, "stored,
/// waiting"), converted in the room's `ConversionQueue`, and answered upload-stored once
/// its PDF exists; until then it is not in the catalog, and showing it is `stillConverting`.
extension RoomCore {
    /// The stored upload `content` as a deck or clip to show, or why not. A deck still
    /// converting whose first page is ready is that page (§30.8).
    func storedEntry(_ content: ContentID) throws -> ContentEntry {
        if let item = catalog[content] { return item }
        if let job = conversions[content] {
            if let early = job.early { return early }
            throw LecternError.stillConverting(job.entry.name)
        }
        throw LecternError.unknownContent
    }

    /// The deck `content` as far as it can be shown: the catalog's, or the first page of one
    /// still converting.
    func deckEntry(_ content: ContentID) -> ContentEntry? { catalog[content] ?? conversions[content]?.early }

    /// A stored original to convert. `waiter`: the request answered once it is converted.
    mutating func convertStored(_ entry: ContentEntry, uploader: DeviceID?, waiter: ConversionQueue.Waiter?) {
        let format = entry.convertedFrom ?? "file"
        do {
            let ahead = conversions.jobs.count - conversions.running.count
            let actions = try conversions.add(entry, format: format, uploader: uploader, waiter: waiter, now: now)
            if let waiter, let p = live(waiter.connection) {
                // First: stored on disk, waiting (the start, when at once, says so next).
                let stored = ConversionProgress(
                    content: entry.id, stage: .queued, ahead: UInt8(clamping: ahead), budgetMs: UInt32(conversions.limits.budget * 1000), format: format)
                send(.conversionProgress(stored), to: p, tag: waiter.beginTag)
            }
            log(.info, "converting \(entry.name) (\(format)) to PDF: \(conversions.running.contains { $0.content == entry.id } ? "now" : "queued")")
            run(actions)
            pushState(viewers: false)
        } catch {
            // The queue is full: the original goes, its bytes leave the quota.
            ledger.storeBytes -= min(ledger.storeBytes, entry.size)
            emit(.discardUpload(entry.id))
            if let waiter, let p = live(waiter.connection) {
                fail(p, tag: waiter.tag, LecternError(mapping: error), request: Command.uploadFinish.rawValue)
            }
        }
    }

    mutating func conversionProgressed(_ content: ContentID, done: Int, total: Int) {
        guard let job = conversions[content], job.stopping == nil else { return }
        conversions.progressed(content, done: done, total: total)
        tellWaiters(content)
        pushState(viewers: false)
    }

    /// Its first page is ready (§30.8): it may be presented while the rest converts. Those
    /// waiting for it are told (conversion-progress, stage 3); their upload-finish is still
    /// answered once, when the whole deck exists or why not.
    mutating func conversionFirstPage(_ content: ContentID, _ entry: ContentEntry, pagesInAll: Int) {
        guard conversions.firstPage(content, entry, pagesInAll: pagesInAll) else { return }
        log(.info, "page 1 of \(entry.name) ready: it may be shown while the rest converts")
        tellWaiters(content)
        pushState(viewers: false)
    }

    mutating func conversionEnded(_ content: ContentID, _ result: Result<ContentEntry, LecternError>) {
        let (ended, actions) = conversions.finished(content, now: now)
        guard let job = ended else { return }
        switch (result, job.stopping) {
        case (.success(var entry), nil):
            entry.storedAt = wallTime
            entry.awaitsConversion = false
            if let early = job.early {
                // Notes typed on its first page while it converted are the deck's.
                var deck = entry.deck
                deck.notes = early.deck.notes
                entry.console = deck
                deckCompleted(entry)
            }
            // The PDF's bytes join the original's in the quota.
            ledger.storeBytes += entry.convertedBytes
            catalog.set(entry)
            log(.info, "converted \(entry.name) (\(job.format)): \(entry.pages) pages")
            for w in job.waiters {
                guard let p = live(w.connection) else { continue }
                send(.uploadStored(UploadStored(content: content, kind: .pdf, size: entry.size, pageCount: UInt32(entry.pages), durationMs: 0)), to: p, tag: w.tag)
            }
        default:
            let error: LecternError
            if let reason = job.stopping {
                error = stopError(job)(reason)
            } else if case .failure(let e) = result {
                error = e
            } else {
                error = .internalError
            }
            log(.warning, "converting \(job.entry.name) (\(job.format)) failed: \(error.message)")
            ledger.storeBytes -= min(ledger.storeBytes, job.entry.size)
            emit(.discardUpload(content))
            if job.early != nil { clearScreens(showing: content) }
            for w in job.waiters { if let p = live(w.connection) { fail(p, tag: w.tag, error, request: Command.uploadFinish.rawValue) } }
        }
        run(actions)
        pushState(viewers: false)
    }

    /// The deck shown by its first page is whole (§30.8): every screen showing it (the
    /// room's, the panes') has all its pages now, on the same page, nothing drawn again;
    /// the neighbours of that page are drawn ahead.
    private mutating func deckCompleted(_ entry: ContentEntry) {
        let id = entry.id
        if screen.deckCompleted(id, pages: entry.pages) { prerender(screen.running?.target ?? screen.committed) }
        for i in wall.panes.indices where wall.withQueue(i, { $0.deckCompleted(id, pages: entry.pages) }) == true {
            if let q = wall.panes[i].queue { prerender(q.running?.target ?? q.committed) }
        }
        persist()
        pushState()
    }

    private mutating func prerender(_ shown: CommittedScreen) {
        guard let c = shown.content, shown.page >= 1 else { return }
        emit(.prerender(content: c.id.hex, page: shown.page, part: shown.part))
    }

    /// A deck shown by its first page couldn't be converted whole: it is gone, and every
    /// screen showing it (or about to) goes back to the idle screen (its uploader is told
    /// why by the answer to the upload).
    private mutating func clearScreens(showing id: ContentID) {
        func shows(_ q: ScreenQueue) -> Bool { q.committed.content?.id == id || q.running?.target?.content?.id == id }
        if shows(screen) { changeScreen(.idle, reply: nil) }
        for i in wall.panes.indices {
            if let q = wall.panes[i].queue, shows(q) { changePane(i, .idle, reply: nil) }
        }
    }

    /// conversion-cancel (0x3F): the uploader (or a moderator) stops a conversion.
    mutating func conversionCancel(_ content: ContentID, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        guard let job = conversions[content] else { throw LecternError.notConverting }
        let moderator = floor.role(of: me) == .moderator
        guard moderator || job.uploader == me || ledger.isOwner(me, of: content) else { throw LecternError.notYourContent }
        let why = moderator && job.uploader != me ? "the moderator cancelled it" : "its uploader cancelled it"
        let (removed, actions) = conversions.stop(content, .cancelled(why), now: now)
        send(.ok, to: p, tag: tag)
        if let removed {   // it was waiting: gone at once
            ledger.storeBytes -= min(ledger.storeBytes, removed.entry.size)
            emit(.discardUpload(content))
            let error = LecternError.conversionCancelled(removed.entry.name, why)
            for w in removed.waiters { if let q = live(w.connection) { fail(q, tag: w.tag, error, request: Command.uploadFinish.rawValue) } }
        }
        run(actions)
        pushState(viewers: false)
    }

    /// Stops every conversion (the meeting ended): waiting ones go at once, running ones
    /// when their converter has stopped. Returns how many there were.
    mutating func stopConversions(_ why: String) -> Int {
        // Waiting ones first (last first), so that none starts only to be stopped.
        let all = conversions.jobs
        for job in all.reversed() {
            let (removed, actions) = conversions.stop(job.content, .cancelled(why), now: now)
            if let removed {
                ledger.storeBytes -= min(ledger.storeBytes, removed.entry.size)
                emit(.discardUpload(removed.content))
                let error = LecternError.conversionCancelled(removed.entry.name, why)
                for w in removed.waiters { if let q = live(w.connection) { fail(q, tag: w.tag, error, request: Command.uploadFinish.rawValue) } }
            }
            run(actions)
        }
        return all.count
    }

    /// Every tick: conversions past their budget are stopped.
    mutating func conversionsTick() { run(conversions.expire(now: now)) }

    /// The state's `conversions` (presenters and the moderator; viewers get null).
    var conversionsSnapshot: [ConversionSnapshot] { conversions.snapshot(now: now) }

    private mutating func run(_ actions: [ConversionQueue.Action]) {
        for a in actions {
            switch a {
            case .start(let entry, let format):
                emit(.startConversion(entry, format: format))
                tellWaiters(entry.id)
            case .stop(let content): emit(.stopConversion(content))
            }
        }
    }

    private mutating func tellWaiters(_ content: ContentID) {
        guard let job = conversions[content], let progress = conversions.progress(content, now: now) else { return }
        for w in job.waiters { if let p = live(w.connection) { send(.conversionProgress(progress), to: p, tag: w.beginTag) } }
    }

    private func stopError(_ job: ConversionQueue.Job) -> (ConversionQueue.StopReason) -> LecternError {
        { reason in
            switch reason {
            case .timedOut(let s): .conversionTimedOut(job.entry.name, seconds: s)
            case .cancelled(let why): .conversionCancelled(job.entry.name, why)
            }
        }
    }
}

extension RoomCore {
    /// After a restart: the stored originals whose PDF didn't exist are converted again
    /// (nobody waits for them; their uploaders see them in the state's `conversions`).
    mutating func resumeConversions() {
        let pending = unconverted
        unconverted = []
        for entry in pending { convertStored(entry, uploader: nil, waiter: nil) }
    }
}
