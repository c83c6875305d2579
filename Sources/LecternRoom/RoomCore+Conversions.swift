import LecternProtocol

/// Converted files (docs/protocol.md §30): an upload that is neither a PDF nor a clip is
/// stored as it came (upload-finish is then answered with conversion-progress, "stored,
/// waiting"), converted in the room's `ConversionQueue`, and answered upload-stored once
/// its PDF exists; until then it is not in the catalog, and showing it is `stillConverting`.
extension RoomCore {
    /// The stored upload `content` as a deck or clip to show, or why not.
    func storedEntry(_ content: ContentID) throws -> ContentEntry {
        if let item = catalog[content] { return item }
        if let job = conversions[content] { throw LecternError.stillConverting(job.entry.name) }
        throw LecternError.unknownContent
    }

    /// A stored original to convert. `waiter`: the request answered once it is converted.
    func convertStored(_ entry: ContentEntry, uploader: DeviceID?, waiter: ConversionQueue.Waiter?) {
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

    func conversionProgressed(_ content: ContentID, done: Int, total: Int) {
        guard let job = conversions[content], job.stopping == nil else { return }
        conversions.progressed(content, done: done, total: total)
        tellWaiters(content)
        pushState(viewers: false)
    }

    func conversionEnded(_ content: ContentID, _ result: Result<ContentEntry, LecternError>) {
        let (ended, actions) = conversions.finished(content, now: now)
        guard let job = ended else { return }
        switch (result, job.stopping) {
        case (.success(var entry), nil):
            entry.storedAt = wallClock()
            entry.awaitsConversion = false
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
            for w in job.waiters { if let p = live(w.connection) { fail(p, tag: w.tag, error, request: Command.uploadFinish.rawValue) } }
        }
        run(actions)
        pushState(viewers: false)
    }

    /// conversion-cancel (0x3F): the uploader (or a moderator) stops a conversion.
    func conversionCancel(_ content: ContentID, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
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
    func stopConversions(_ why: String) -> Int {
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
    func conversionsTick() { run(conversions.expire(now: now)) }

    /// The state's `conversions` (presenters and the moderator; viewers get null).
    var conversionsSnapshot: [ConversionSnapshot] { conversions.snapshot(now: now) }

    private func run(_ actions: [ConversionQueue.Action]) {
        for a in actions {
            switch a {
            case .start(let entry, let format):
                emit(.startConversion(entry, format: format))
                tellWaiters(entry.id)
            case .stop(let content): emit(.stopConversion(content))
            }
        }
    }

    private func tellWaiters(_ content: ContentID) {
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
    func resumeConversions() {
        let pending = unconverted
        unconverted = []
        for entry in pending { convertStored(entry, uploader: nil, waiter: nil) }
    }
}
