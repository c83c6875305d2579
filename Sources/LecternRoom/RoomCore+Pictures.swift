import LecternCore
import LecternProtocol

/// Pictures for the remotes: screenshots of the output and page previews.
extension RoomCore {
    /// A page of an upload as the output would show it, small (the web remote's "next
    /// slide"). For those who may present the file: its uploaders and the moderator —
    /// the audience sees slides when they are shown, not before.
    func pagePreview(_ r: PagePreviewRequest, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        guard let item = catalog[r.content] else { throw LecternError.unknownContent }
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
        try takePictureSlot(p)
        emit(.renderPreview(p.id, tag: tag, content: r.content.hex, page: page, maxWidth: Int(r.maxWidth), maxHeight: Int(r.maxHeight), part: part))
    }

    /// A few pictures per connection are made at once; asking for more is refused at once
    /// (each is a PNG of up to the output's size waiting to be sent).
    func takePictureSlot(_ p: Peer) throws {
        guard p.picturesInFlight < ProtocolLimits.picturesInFlight else {
            throw LecternError(
                .busy, detail: UInt64(ProtocolLimits.picturesInFlight),
                message: "Too many pictures asked for at once — wait for the earlier ones.")
        }
        p.picturesInFlight += 1
    }

    func screenshotTaken(_ id: ConnectionID, tag: UInt16, _ pieces: [ScreenshotChunk]) {
        peers[id]?.picturesInFlight -= 1
        if let p = live(id) { sendPieces(pieces, to: p, tag: tag) }
    }

    func previewRendered(_ id: ConnectionID, tag: UInt16, _ result: Result<[ScreenshotChunk], LecternError>) {
        peers[id]?.picturesInFlight -= 1
        guard let p = live(id) else { return }
        switch result {
        case .success(let pieces): sendPieces(pieces, to: p, tag: tag)
        case .failure(let e): fail(p, tag: tag, e, request: Command.pagePreview.rawValue)
        }
    }
}
