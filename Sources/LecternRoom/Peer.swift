import LecternProtocol

/// One connection as the room sees it (a device once registered): its hello challenge,
/// keep-alive, registration and uploads. A value in `RoomCore.peers`, changed in place
/// there (`peers[id]?.field = x`): a `Peer` passed to a handler is the peer as it was
/// when the handler began, so what may have changed since is read from `peers` again.
struct Peer: Equatable, Sendable {
    /// A screenshot or page preview being made for the peer, and the bytes it counts (§13).
    struct Picture: Equatable, Sendable {
        var tag: UInt16
        var cost: Int
    }

    let id: ConnectionID
    let address: String
    let challenge: [UInt8]
    let connectedAt: Double
    var deviceID: DeviceID?
    /// Registered as a viewer (§24): no device id; frames carry 0xFF both ways.
    var viewer: Audience.Viewer?
    var isRegistered: Bool { deviceID != nil || viewer != nil }
    /// Declared a wall display (wall-view, §27): not a person, so it neither starts nor keeps a meeting.
    var isWall = false
    var keepAlive: KeepAlive
    /// Uploads this connection is sending, by file.
    var uploads: [ContentID: UploadLedger.Upload] = [:]
    /// Uploads finishing (verified and stored by the shell): the tag of each one's
    /// upload-begin, which a conversion's progress carries (§30.3).
    var finishing: [ContentID: UInt16] = [:]
    /// Closed by the room: nothing more is sent or handled.
    var closing = false
    /// False while the transport's outbound queue is over its output budget, and since when.
    var writable = true
    var unwritableSince: Double?
    /// Whether the transport reads from the peer (the last `setReading` said).
    var reading = true
    /// Error replies sent while unregistered (a few, and the connection is closed).
    var unregisteredErrors = 0
    /// Screenshots and page previews being made for this peer (tag, bytes counted).
    var pictures: [Picture] = []
    var picturesInFlight: Int { pictures.count }
    /// Bytes of pictures sent and maybe still waiting in its output, and since when (§13).
    var pictureBytesSent = 0
    var pictureSentAt = 0.0
    /// When it gets the newest state: pushes coalesced, one owed while it doesn't read (§14.1).
    var statePacer = StatePacer()
    /// Reading from the peer is paused until this upload writer's queued chunks are stored.
    var readingPausedBy: Int?

    init(id: ConnectionID, address: String, challenge: [UInt8], now: Double, keepAliveTimeout: Double) {
        self.id = id
        self.address = address
        self.challenge = challenge
        connectedAt = now
        keepAlive = KeepAlive(
            now: now, interval: min(ProtocolLimits.pingIntervalSeconds, keepAliveTimeout / 3),
            timeout: keepAliveTimeout)
    }
}
