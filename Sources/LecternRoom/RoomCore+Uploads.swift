import LecternProtocol

/// Uploads: begin (a stored file proved instead of sent, a partial one resumed, the newest
/// begin taking a part file over), chunks with back-pressure, finish, and the quota.
extension RoomCore {
    mutating func uploadBegin(_ b: UploadBegin, peer p: Peer, device me: DeviceID, tag: UInt16) throws {
        if p.uploads[b.content] == nil {
            // Each upload holds a file open: a few per connection, a few dozen in all.
            let mine = p.uploads.values.filter { !$0.failed }.count
            if mine >= ProtocolLimits.uploadsPerConnection || ledger.writers.count >= ProtocolLimits.openUploads {
                throw LecternError(
                    .busy, detail: UInt64(ProtocolLimits.uploadsPerConnection),
                    message: "Too many uploads at once — finish the others first.")
            }
        }
        let maxSize = UInt64(config.maxUploadBytes), quota = UInt64(config.diskQuotaBytes)
        if catalog[b.content] != nil {
            // Already stored: with a valid possession proof it is not sent again. (A file
            // being converted is sent again: its upload-finish waits for the same conversion.)
            try UploadSession.checkBegin(b, maxFileSize: maxSize, maxFileText: config.maxUploadText, quota: quota, freeQuota: .max)
            if b.proof != nil { return emit(.checkProof(p.id, tag: tag, b, challenge: p.challenge)) }
            return startWhenFree(b, peer: p, tag: tag, from: 0)
        }
        guard partIsFree(b, peer: p, tag: tag) else { return }
        let stored = ledger.parts[b.content]?.size ?? 0
        let used = ledger.usedBytes
        try UploadSession.checkBegin(
            b, maxFileSize: maxSize, maxFileText: config.maxUploadText, quota: quota, freeQuota: quota > used ? quota - used : 0,
            alreadyStored: stored)
        start(b, peer: p, tag: tag, from: min(stored, b.size))
    }

    mutating func proofChecked(_ id: ConnectionID, tag: UInt16, _ b: UploadBegin, matches: Bool) {
        guard let p = live(id), let me = p.deviceID else { return }
        if matches, let item = catalog[b.content] {
            ledger.addOwner(me, of: b.content)
            send(
                .uploadReady(
                    UploadReady(
                        content: b.content, status: .stored, offset: item.size, kind: item.kind,
                        pageCount: UInt32(item.pages), durationMs: item.durationMs)), to: p, tag: tag)
        } else {
            startWhenFree(b, peer: p, tag: tag, from: 0)
        }
    }

    private mutating func startWhenFree(_ b: UploadBegin, peer p: Peer, tag: UInt16, from offset: UInt64) {
        if partIsFree(b, peer: p, tag: tag) { start(b, peer: p, tag: tag, from: offset) }
    }

    /// True when nobody writes the part file of `b`'s content. Otherwise the newest begin
    /// takes it over (a device that reconnected): the writer lets go of it, the old
    /// upload's later chunks are dropped, and `b` runs again once the file is free.
    private mutating func partIsFree(_ b: UploadBegin, peer p: Peer, tag: UInt16) -> Bool {
        guard let part = ledger.parts[b.content], !part.isFree else { return true }
        if let w = part.writer, let writer = ledger.writers[w] {
            if let other = peers[writer.connection], other.uploads[b.content]?.writer == w {
                peers[other.id]?.uploads[b.content]?.failed = true
                peers[other.id]?.uploads[b.content]?.takenOver = true
            }
            ledger.release(b.content, writer: w, leaving: true)
            emit(.closePart(b.content, writer: w))
        }
        ledger.parts[b.content]?.waiting.append(UploadLedger.WaitingBegin(connection: p.id, tag: tag, begin: b))
        return false
    }

    private mutating func start(_ b: UploadBegin, peer p: Peer, tag: UInt16, from offset: UInt64) {
        if offset == 0 { emit(.prepareConverter(fileName: b.name)) }
        let w = ledger.openWriter(b.content, connection: p.id, tag: tag, offset: offset, now: now)
        peers[p.id]?.uploads[b.content] = UploadLedger.Upload(session: UploadSession(begin: b, alreadyStored: offset), writer: w, beginTag: tag)
        emit(.openPart(b.content, writer: w, offset: offset, hashing: offset == 0))
    }

    mutating func partOpened(_ content: ContentID, writer w: Int, failure: String?) {
        guard let writer = ledger.writers[w] else { return }
        let p = live(writer.connection)
        if let failure {
            log(.error, "can't open the upload file of \(content.hex.prefix(12)): \(failure)")
            ledger.release(content, writer: w, leaving: false)
            _ = ledger.writerLeft(content, writer: w, size: ledger.parts[content]?.size)
            if let p, p.uploads[content]?.writer == w { peers[p.id]?.uploads[content] = nil }
            if let p {
                fail(
                    p, tag: writer.beginTag, .storageFailed,
                    request: Command.uploadBegin.rawValue)
            }
        } else if let p, let u = p.uploads[content], u.writer == w {
            send(.uploadReady(UploadReady(content: content, status: .sendFrom, offset: u.session.stored)), to: p, tag: writer.beginTag)
        }
    }

    mutating func uploadChunk(_ ch: UploadChunk, peer p: Peer) throws {
        guard var u = p.uploads[ch.content] else { throw LecternError.noUpload }
        if u.failed {
            guard u.takenOver, !u.toldTakenOver else { return }
            u.toldTakenOver = true
            peers[p.id]?.uploads[ch.content] = u
            throw LecternError.uploadTakenOver
        }
        do {
            let quota = UInt64(config.diskQuotaBytes)
            if ledger.usedBytes + UInt64(ch.data.count) > quota { throw LecternError.quotaFull(quota: quota) }
            if let f = ledger.writers[u.writer]?.failure {
                log(.error, "storing an upload of \(ch.content.hex.prefix(12)) failed: \(f)")
                throw LecternError.storageFailed
            }
            // upload-progress says what is in the file: sent once the chunk is written.
            let progress = try u.session.accept(offset: ch.offset, count: ch.data.count)
            ledger.queue(ch.data.count, progress: progress, on: u.writer, now: now)
            emit(.writeChunk(ch.content, writer: u.writer, ch.data))
            peers[p.id]?.uploads[ch.content] = u
            if p.readingPausedBy == nil, let queued = ledger.writers[u.writer]?.queued, queued > UploadLedger.highWater {
                // The disk is slower than the network: stop reading until the queue drains.
                peers[p.id]?.readingPausedBy = u.writer
                updateReading(p)
            }
        } catch {
            u.failed = true
            peers[p.id]?.uploads[ch.content] = u
            throw error
        }
    }

    mutating func chunkWritten(_ content: ContentID, writer w: Int, bytes: Int, failure: String?) {
        guard let (writer, progress) = ledger.written(on: w, failure: failure), let p = live(writer.connection) else { return }
        if let progress { send(.uploadProgress(content: content, stored: progress), to: p, tag: writer.beginTag) }
        if p.readingPausedBy == w, writer.queued < UploadLedger.lowWater {
            peers[p.id]?.readingPausedBy = nil
            updateReading(p)
        }
    }

    mutating func uploadFinish(_ content: ContentID, peer p: Peer, device me: DeviceID, tag: UInt16) throws {
        if p.uploads[content]?.takenOver == true {
            peers[p.id]?.uploads[content] = nil
            throw LecternError.uploadTakenOver
        }
        guard let u = p.uploads[content], !u.failed || u.session.isComplete else { throw LecternError.noUpload }
        try u.session.checkFinish()
        peers[p.id]?.uploads[content] = nil
        peers[p.id]?.finishing[content] = u.beginTag
        ledger.release(content, writer: u.writer, leaving: true)
        let s = u.session
        emit(
            .finishUpload(
                p.id, tag: tag, writer: u.writer,
                UploadToStore(
                    content: content, name: s.name, announcedKind: s.kind, device: me,
                    uploader: floor.devices[me]?.name ?? "", size: s.size)))
    }

    mutating func uploadFinished(
        _ id: ConnectionID, tag: UInt16, writer w: Int, _ upload: UploadToStore,
        _ result: Result<ContentEntry, UploadRefusal>
    ) {
        let content = upload.content, me = upload.device
        let p = live(id)
        let beginTag = p == nil ? 0 : peers[id]?.finishing.removeValue(forKey: content) ?? 0
        switch result {
        case .success(let item) where item.awaitsConversion:
            // Stored as it came (on disk, its bytes in the quota once); upload-stored waits for its PDF.
            if catalog[content] == nil && conversions[content] == nil { ledger.storeBytes += item.size }
            ledger.addOwner(me, of: content)
            log(.info, "stored \(item.name) (\(item.size) bytes, \(item.convertedFrom ?? "?")) from device \(me), to convert")
            let waiter = p.map { ConversionQueue.Waiter(connection: $0.id, tag: tag, beginTag: beginTag) }
            if let job = conversions[content] {
                if let waiter { conversions.wait(waiter, for: content) }
                if let p, let progress = conversions.progress(job.content, now: now) { send(.conversionProgress(progress), to: p, tag: beginTag) }
            } else {
                convertStored(item, uploader: me, waiter: waiter)
            }
        case .success(let item):
            // A file the store had already is kept once: only a new one adds to the store.
            if catalog[content] == nil { ledger.storeBytes += item.size }
            var item = item
            item.storedAt = wallTime   // a file sent again is the day's again (`uploads_kept`, §27)
            if let kept = catalog[content] { item.name = kept.name; item.console = kept.console }
            catalog.set(item)
            ledger.addOwner(me, of: content)
            log(.info, "stored \(item.name) (\(item.size) bytes, \(item.kind)) from device \(me)")
            if let p {
                send(
                    .uploadStored(
                        UploadStored(
                            content: content, kind: item.kind, size: upload.size, pageCount: UInt32(item.pages),
                            durationMs: item.durationMs)), to: p, tag: tag)
            }
        case .failure(let refusal):
            log(.warning, "upload \(upload.name) from device \(me) refused: \(refusal.error.message)\(refusal.detail.map { " (\($0))" } ?? "")")
            if let p { fail(p, tag: tag, refusal.error, request: Command.uploadFinish.rawValue) }
        }
        var kept: UInt64?   // the part file's size when it stays (nil: it is gone)
        if case .failure(let r) = result, !r.discarded { kept = ledger.parts[content]?.size }
        runWaiting(ledger.writerLeft(content, writer: w, size: kept))
    }

    mutating func partClosed(_ content: ContentID, writer w: Int, size: UInt64) {
        runWaiting(ledger.writerLeft(content, writer: w, size: size))
        if size == 0 && ledger.parts[content] == nil { emit(.removePart(content)) }   // nothing in it to resume
    }

    /// Once a minute: part files that made no progress for a day are given up.
    mutating func sweepParts() {
        guard now - lastPartSweep >= 60 else { return }
        lastPartSweep = now
        for content in ledger.removeStale(before: now - UploadLedger.staleSeconds, now: now) {
            log(.info, "giving up the partial upload \(content.hex.prefix(12)): no progress for a day")
            emit(.removePart(content))
        }
    }

    private mutating func runWaiting(_ begins: [UploadLedger.WaitingBegin]) {
        for w in begins {
            guard let p = live(w.connection), let me = p.deviceID else { continue }
            do { try uploadBegin(w.begin, peer: p, device: me, tag: w.tag) } catch {
                fail(p, tag: w.tag, LecternError(mapping: error), request: Command.uploadBegin.rawValue)
            }
        }
    }

    /// The connection is gone: what arrived is stored, and the upload resumes from it.
    mutating func uploadsClosed(of p: Peer) {
        for (content, u) in p.uploads where ledger.parts[content]?.writer == u.writer {
            ledger.release(content, writer: u.writer, leaving: true)
            emit(.closePart(content, writer: u.writer))
        }
    }
}
