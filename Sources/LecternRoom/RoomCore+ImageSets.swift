import LecternModel
import LecternProtocol

/// Images chosen together become one deck (docs/protocol.md §30.9): images-deck names stored
/// image uploads in order; the room writes them down as an `ImageSet` (a small original whose
/// SHA-256 is the new deck's content id) and converts it like any upload — the queue, the
/// budget, conversion-progress with the request's tag, and upload-stored once the deck exists.
extension RoomCore {
    mutating func imagesDeck(_ d: ImagesDeck, by me: DeviceID, peer p: Peer, tag: UInt16) throws {
        guard FileName.isValid(d.name) else { throw LecternError.invalidFileName }
        let limit = config.convert.imageMaxCount
        guard d.images.count <= limit else { throw LecternError.tooManyImages(count: d.images.count, limit: limit) }
        let moderator = floor.role(of: me) == .moderator
        var images: [ImageSet.Image] = []
        for (i, id) in d.images.enumerated() {
            let entry = try storedEntry(id)
            guard moderator || ledger.isOwner(me, of: id) else { throw LecternError.notYourContent }
            guard let from = entry.convertedFrom, ImageFormat(rawValue: from) != nil else {
                throw LecternError.notAnImage(position: i + 1, name: entry.name)
            }
            images.append(ImageSet.Image(id: id.hex, name: entry.name))
        }
        let bytes = ImageSet(images: images).bytes
        let content = ContentHasher.id(of: bytes)
        if let deck = catalog[content] {   // made before: the same images in the same order
            ledger.addOwner(me, of: content)
            send(.uploadStored(UploadStored(content: content, kind: .pdf, size: deck.size, pageCount: UInt32(deck.pages), durationMs: 0)), to: p, tag: tag)
            return
        }
        if conversions[content] != nil {   // being made: this request waits for it too
            ledger.addOwner(me, of: content)
            conversions.wait(ConversionQueue.Waiter(connection: p.id, tag: tag, beginTag: tag), for: content)
            if let progress = conversions.progress(content, now: now) { send(.conversionProgress(progress), to: p, tag: tag) }
            return
        }
        emit(.storeImageSet(p.id, tag: tag, ImageSetToStore(content: content, bytes: bytes, name: d.name, device: me, uploader: floor.devices[me]?.name ?? "")))
    }

    /// The set is on disk (or couldn't be written): it is converted like an upload.
    mutating func imageSetStored(_ id: ConnectionID, tag: UInt16, _ set: ImageSetToStore, _ result: Result<ContentEntry, LecternError>) {
        let content = set.content
        switch result {
        case .success(let item):
            if catalog[content] == nil && conversions[content] == nil { ledger.storeBytes += item.size }
            ledger.addOwner(set.device, of: content)
            log(.info, "stored the image set \(item.name) (\(set.bytes.count) bytes) from device \(set.device), to make into a deck")
            let waiter = live(id).map { ConversionQueue.Waiter(connection: $0.id, tag: tag, beginTag: tag) }
            if conversions[content] != nil {
                if let waiter { conversions.wait(waiter, for: content) }
            } else {
                convertStored(item, uploader: set.device, waiter: waiter)
            }
        case .failure(let e):
            log(.warning, "the image set \(set.name) from device \(set.device) was not stored: \(e.message)")
            if let p = live(id) { fail(p, tag: tag, e, request: Command.imagesDeck.rawValue) }
        }
    }
}

/// What `RoomEffect.storeImageSet` stores: the set's file and who asked for it.
public struct ImageSetToStore: Equatable, Sendable {
    public var content: ContentID
    public var bytes: [UInt8]
    public var name: String
    public var device: DeviceID
    public var uploader: String
    public init(content: ContentID, bytes: [UInt8], name: String, device: DeviceID, uploader: String) {
        self.content = content
        self.bytes = bytes
        self.name = name
        self.device = device
        self.uploader = uploader
    }
}
