import LecternModel
import LecternProtocol

/// Paces the pointer to viewers (docs/protocol.md §24.2): at most `ViewerPointer.rateHz`
/// messages a second to the whole audience, the newest position winning; one held back is
/// owed and goes out when its turn comes (the room wakes for it), so the last position —
/// and a lift — always arrives. Pure: time is passed in.
struct ViewerPointerPacer: Equatable {
    static let interval = 1.0 / Double(ViewerPointer.rateHz)
    private(set) var lastSent = -Double.infinity
    private(set) var owed: ViewerPointer?

    /// A new position: returned when it may go now, else kept as owed.
    mutating func offer(_ p: ViewerPointer, now: Double) -> ViewerPointer? {
        guard now - lastSent >= Self.interval else {
            owed = p
            return nil
        }
        lastSent = now
        owed = nil
        return p
    }

    /// When the owed position may go, if one is owed.
    var owedAt: Double? { owed == nil ? nil : lastSent + Self.interval }

    /// The owed position, once its turn has come.
    mutating func due(now: Double) -> ViewerPointer? {
        guard let o = owed, now >= lastSent + Self.interval - 1e-9 else { return nil }
        return offer(o, now: max(now, lastSent + Self.interval))
    }
}

extension RoomCore {
    /// Someone with the floor points: the viewers see it (paced).
    mutating func pointToViewers(page: Int, _ point: InkPoint, lifted: Bool) {
        guard audience.count > 0 else { return }
        if let p = audience.pointer.offer(ViewerPointer(page: UInt32(clamping: page), point: point, lifted: lifted), now: now) { sendToViewers(p) }
    }

    /// At a wake: the owed position, if its turn has come; live results owed, once theirs has.
    mutating func audienceWake() {
        if let p = audience.pointer.due(now: now) { sendToViewers(p) }
        if let at = audience.resultsOwedAt, now >= at - 1e-9 { pushResults() }
    }

    /// Encoded once for all; a viewer that isn't reading misses it (the next one supersedes it).
    private mutating func sendToViewers(_ p: ViewerPointer) {
        let bytes = Message.viewerPointer(p).encode(tag: 0, deviceID: ProtocolLimits.unregisteredID)
        // Chosen first: sending updates each peer in place, which iterating `peers` would copy.
        let viewers = peers.values.filter { $0.viewer != nil && $0.writable && !$0.closing }
        for peer in viewers { send(bytes: bytes, to: peer) }
    }
}
