import LecternModel
import LecternProtocol

/// The meeting record (§26): what the wall showed goes into `record` as it happens; a
/// download asks the shell to draw it (`.makeRecord`, in a worker process) and to send the
/// PDF back in record-data pieces from its file (`.sendRecord`), one download at a time
/// from the request until the last piece is written.
extension RoomCore {
    /// The one download being made: who asked, and the PDF's page count.
    struct RecordMaking: Equatable {
        var peer: ConnectionID
        var tag: UInt16
        var pages: Int
        /// Made, and being sent (`.sendRecord`) until `.recordSent`.
        var sending = false
    }

    /// Who holds the floor now, as the record names them.
    var recordPresenter: String? { floor.holder.flatMap { floor.name(of: $0) } }

    /// The finished strokes on a page now (what a record page of it gets).
    var recordStrokes: MeetingRecord.StrokesOf {
        { [ink] c, p in ink.strokes(on: InkPageRef(content: c, page: p)) }
    }

    /// After every change the wall committed: a new page (the one before leaves with its
    /// ink), a wall of several panes as it looks now (RoomCore+RecordWall), or the idle screen.
    mutating func recordWall() {
        guard config.record else { return }
        let at = wallTime
        if !wall.isSinglePane {
            if let view = recordWallView {
                record.wallShown(view, presenter: recordPresenter, at: at, strokes: recordStrokes)
            } else {
                record.left(strokes: recordStrokes)
            }
            return
        }
        let c = screen.committed
        if let content = c.content, content.kind == .pdf, c.page >= 1 {
            record.pageShown(
                content: content.id.hex, name: content.name, page: c.page, part: c.part, presenter: recordPresenter, at: at, strokes: recordStrokes)
        } else {
            record.left(strokes: recordStrokes)
        }
    }

    /// A poll's results going on the wall (or new counts for them): the card as the wall
    /// will show it. (Decided when the card is put up: by the time the wall has drawn it
    /// the poll may be off the wall again.) An audience question on the wall is not recorded.
    mutating func recordPoll(_ card: WallCard?) {
        guard config.record, let card, audience.polls.onWall != nil, audience.questions.wallQuestion == nil else { return }
        let presenter = recordPresenter, at = wallTime
        recordBetween { $0.pollShown(card, presenter: presenter, at: at) }
    }

    /// A clip started playing (not one put back after a restart: it is on the record already).
    mutating func recordClip(_ content: ContentSnapshot, duration: Double) {
        guard config.record else { return }
        let presenter = recordPresenter, at = wallTime
        recordBetween { $0.clipPlayed(content: content.id.hex, name: content.name, duration: duration, presenter: presenter, at: at) }
    }

    /// Puts something over the page on the wall into the record after the page as it is
    /// now; the page goes on (a change to its ink after that is a new page of the record,
    /// the same page unchanged is not).
    private mutating func recordBetween(_ body: (inout MeetingRecord) -> Void) {
        let onWall = record.onWall
        record.left(strokes: recordStrokes)
        body(&record)
        record.putBack(onWall)
    }

    /// Where the record's share pictures are kept (`data_dir/record-frames`).
    var recordFramesDirectory: String { config.dataDir + "/record-frames" }

    /// A share went on the wall: its picture a second later is the record's "started".
    mutating func recordShareStarted(_ s: ShareBoard.Share) {
        guard config.record else { return }
        emit(.shareRecordFrame(serial: s.serial, path: recordFramesDirectory + "/" + recordFrames(s) + "-start.jpg", after: 1))
    }

    /// A share leaves the wall (before its decoder stops): its last picture, and its page
    /// of the record after the page it was over.
    mutating func recordShareEnded(_ s: ShareBoard.Share) {
        guard config.record, let since = s.liveSince else { return }
        emit(.shareRecordFrame(serial: s.serial, path: recordFramesDirectory + "/" + recordFrames(s) + "-end.jpg", after: 0))
        let at = wallTime - max(0, now - since)
        let frames = recordFrames(s), duration = max(0, now - since)
        recordBetween { $0.shareShown(name: s.name, source: s.config.source.name, duration: duration, frames: frames, at: at) }
    }

    /// The name of a share's pictures: the meeting's and the share's own.
    private func recordFrames(_ s: ShareBoard.Share) -> String { "share-\(meeting.id.prefix(8))-\(s.serial)" }

    var recordSnapshot: RecordSnapshot {
        RecordSnapshot(
            on: config.record, pages: config.record ? record.count(strokes: recordStrokes) : 0,
            presentersMayDownload: config.recordPresenters, leadMayDownload: keys.moderator == nil)
    }

    // MARK: the download

    /// record-request: the moderator's (or, with `record_presenters`, any presenter's; in
    /// a room without a moderator passcode, whoever leads).
    mutating func recordRequest(from p: Peer, device me: DeviceID, tag: UInt16) throws {
        guard config.record else { throw LecternError.recordOff }
        let allowed = floor.role(of: me) == .moderator || config.recordPresenters || (keys.moderator == nil && floor.isLead(me))
        guard allowed else { throw LecternError.recordNotAllowed }
        guard recordMaking == nil else { throw LecternError.recordBusy }
        let entries = record.pages(strokes: recordStrokes)
        guard !entries.isEmpty else { throw LecternError.recordEmpty }
        let pages: [RecordJob.Page] = entries.map { e in
            switch e.item {
            case .page(let c, let name, let page, let part, let strokes):
                if Whiteboard.background(c) != nil {
                    return .whiteboard(black: c == Whiteboard.blackHex, name: "\(name) \(page)", strokes: strokes)
                }
                return .deck(content: c, name: name, page: page, part: part, strokes: strokes)
            case .poll(let card): return .card(card)
            case .clip(let c, let name, let duration): return .clip(content: c, name: name, duration: duration)
            case .wall(let w): return .wall(w)
            case .share(let name, let source, let duration, let frames):
                let f = recordFramesDirectory + "/" + frames
                return .share(name: name, source: source, at: e.at, duration: duration, start: f + "-start.jpg", end: f + "-end.jpg")
            }
        }
        var job = RecordJob(
            room: config.room, startedAt: record.startedAt ?? wallTime, madeAt: wallTime,
            presenters: MeetingRecord.presenters(of: entries).map { RecordJob.Presenter(name: $0.name, shown: $0.shown) },
            dropped: record.dropped, pages: pages)
        job.inkDropped = record.inkDropped
        job.background = config.background
        job.overscanPercent = config.overscanPercent
        recordMaking = RecordMaking(peer: p.id, tag: tag, pages: job.pageCount)
        send(.recordProgress(RecordProgress(done: 0, total: UInt16(clamping: job.pageCount))), to: p, tag: tag)
        log(.info, "making the meeting record (\(job.pageCount) pages) for \(floor.name(of: me) ?? "device \(me)")")
        emit(.makeRecord(p.id, tag: tag, job))
    }

    mutating func recordProgressed(_ id: ConnectionID, tag: UInt16, _ progress: RecordProgress) {
        guard recordMaking?.peer == id, let p = live(id) else { return }
        send(.recordProgress(progress), to: p, tag: tag)
    }

    mutating func recordMade(_ id: ConnectionID, tag: UInt16, _ result: Result<RecordPDF, LecternError>) {
        guard let making = recordMaking, making.peer == id, making.tag == tag, !making.sending else { return }
        guard let p = live(id) else {
            recordMaking = nil
            return
        }
        switch result {
        case .success(let pdf):
            log(.info, "sending the meeting record: \(making.pages) pages, \(pdf.size) bytes")
            // Busy until the shell says the last piece is out (or the connection is gone).
            recordMaking?.sending = true
            emit(.sendRecord(p.id, tag: tag, device: p.deviceID ?? ProtocolLimits.unregisteredID, pages: making.pages, pdf))
            peers[p.id]?.keepAlive.noteSent(now: now)
        case .failure(let e):
            recordMaking = nil
            log(.warning, "meeting record not made: \(e.message)")
            fail(p, tag: tag, e, request: Command.recordRequest.rawValue)
        }
    }

    mutating func recordSent(_ id: ConnectionID, tag: UInt16) {
        guard let making = recordMaking, making.peer == id, making.tag == tag, making.sending else { return }
        recordMaking = nil
    }
}
