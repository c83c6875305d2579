import LecternModel
import LecternProtocol

/// Pictures for the remotes: screenshots of the output and page previews.
extension RoomCore {
    /// A page of an upload as the output would show it, small (the web remote's "next
    /// slide"). For those who may present the file: its uploaders and the moderator —
    /// the audience sees slides when they are shown, not before.
    mutating func pagePreview(_ r: PagePreviewRequest, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        let item = try storedEntry(r.content)
        if floor.devices[me]?.role != .moderator && !ledger.isOwner(me, of: r.content) {
            throw LecternError(.notYourContent, message: "Only the person who uploaded it or the moderator can preview its pages.")
        }
        guard item.kind == .pdf else {
            throw LecternError(.wrongKind, detail: UInt64(ContentKind.clip.rawValue), message: "That is a clip — only PDF pages have previews.")
        }
        let page = max(1, Int(r.page))
        guard page <= item.pages else { throw LecternError.pageOutOfRange(page: UInt32(page), pageCount: UInt32(item.pages)) }
        let layout = item.deck.layout
        var part = layout.slidePart
        if r.notesHalf {
            guard let notes = layout.notesPart else {
                throw LecternError(.wrongKind, message: "That deck has no notes half — it isn't a beamer deck with notes on a second screen.")
            }
            try checkMaySeeNotes(me, of: item)
            part = notes
        }
        try takePictureSlot(p, tag: tag, maxWidth: Int(r.maxWidth), maxHeight: Int(r.maxHeight))
        emit(.renderPreview(p.id, tag: tag, content: r.content.hex, page: page, maxWidth: Int(r.maxWidth), maxHeight: Int(r.maxHeight), part: part))
    }

    /// A few pictures per connection are made at once; asking for more is refused at once
    /// (each is a PNG of up to the output's size waiting to be sent). And the room's
    /// `PictureBudget`: a picture is made only if its bytes fit (counted before it is made).
    mutating func takePictureSlot(_ p: Peer, tag: UInt16, maxWidth: Int, maxHeight: Int) throws {
        guard p.picturesInFlight < ProtocolLimits.picturesInFlight else {
            throw LecternError(
                .busy, detail: UInt64(ProtocolLimits.picturesInFlight),
                message: "Too many pictures asked for at once — wait for the earlier ones.")
        }
        let outW = output.width > 0 ? Int(output.width) : 1920, outH = output.height > 0 ? Int(output.height) : 1080
        let size = Fit.previewSize(width: outW, height: outH, maxWidth: maxWidth, maxHeight: maxHeight)
        let cost = PictureBudget.cost(width: size.width, height: size.height)
        guard pictures.budget.admit(cost: cost) else {
            log(.debug, "picture of \(size.width)×\(size.height) for \(p.address) refused: \(pictures.budget.bytes >> 20) MiB of pictures being made")
            var e = LecternError.slowDown(retryAfter: PictureBudget.retryAfterSeconds)
            e.message = "The appliance is making other pictures — ask again in a second."
            throw e
        }
        peers[p.id]?.pictures.append(Peer.Picture(tag: tag, cost: cost))
    }

    /// The picture for `tag` is done: its bytes count on as sent until the peer reads them.
    private mutating func pictureDone(_ id: ConnectionID, tag: UInt16, sent: Bool) {
        let gone = peers[id] == nil
        guard var p = peers[id] ?? pictures.gone[id], let i = p.pictures.firstIndex(where: { $0.tag == tag }) else { return }
        let cost = p.pictures.remove(at: i).cost
        let sent = sent && !p.closing
        pictures.budget.made(cost: cost, sent: sent)
        if sent {
            p.pictureBytesSent += cost
            p.pictureSentAt = now
            let at = now + PictureBudget.settleSeconds
            pictures.settle(at: at)
        }
        if !gone {
            peers[id] = p
        } else {
            pictures.gone[id] = p.pictures.isEmpty ? nil : p
        }
    }

    /// The peer's output drained (it reads again, or `settleSeconds` passed with it still
    /// writable): the pictures sent to it no longer count.
    mutating func picturesDrained(_ peer: Peer, force: Bool = false) {
        // The peer as it is now (a connection just closed: as it was when it closed).
        let p = peers[peer.id] ?? peer
        guard p.pictureBytesSent > 0, force || (p.writable && now >= p.pictureSentAt + PictureBudget.settleSeconds) else { return }
        pictures.budget.drained(bytes: p.pictureBytesSent)
        peers[p.id]?.pictureBytesSent = 0
    }

    /// At the wake: sent pictures whose connections are still writable are settled.
    mutating func settlePictures() {
        guard pictures.takeSettling(now: now) else { return }
        for id in peers.keys where peers[id]!.pictureBytesSent > 0 {
            picturesDrained(peers[id]!)
            if let p = peers[id], p.pictureBytesSent > 0, p.writable {
                let next = p.pictureSentAt + PictureBudget.settleSeconds
                pictures.settle(at: next)
            }
        }
    }

    mutating func screenshotTaken(_ id: ConnectionID, tag: UInt16, _ pieces: [ScreenshotChunk]) {
        let p = live(id)
        pictureDone(id, tag: tag, sent: p != nil)
        if let p { sendPieces(pieces, to: p, tag: tag) }
    }

    mutating func previewRendered(_ id: ConnectionID, tag: UInt16, _ result: Result<[ScreenshotChunk], LecternError>) {
        let p = live(id)
        if case .success = result { pictureDone(id, tag: tag, sent: p != nil) } else { pictureDone(id, tag: tag, sent: false) }
        guard let p else { return }
        switch result {
        case .success(let pieces): sendPieces(pieces, to: p, tag: tag)
        case .failure(let e): fail(p, tag: tag, e, request: Command.pagePreview.rawValue)
        }
    }
}
