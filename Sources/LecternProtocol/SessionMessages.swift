import LecternModel

// The bodies of the session, registration and floor messages (docs/protocol.md §6.1–6.3).

/// Key-derivation parameters for one role, as announced in hello.
public struct KDFParameters: Equatable, Sendable {
    public var rounds: UInt32
    public var salt: [UInt8]
    public init(rounds: UInt32, salt: [UInt8]) {
        self.rounds = rounds
        self.salt = salt
    }
}

/// hello (0x10), the server's first message on every connection.
public struct Hello: Equatable, Sendable {
    public var version: UInt16
    /// 32 fresh random bytes, different on every connection.
    public var challenge: [UInt8]
    /// Largest frame (header included) the server accepts.
    public var maxFrameLength: UInt32
    public var pingIntervalMs: UInt32
    public var timeoutMs: UInt32
    /// nil: the room takes no presenters (never in practice).
    public var presenter: KDFParameters?
    /// nil: no moderator passcode is configured.
    public var moderator: KDFParameters?
    public var room: String
    /// Free text naming the server software, e.g. "lecternd 0.1".
    public var server: String

    public init(
        version: UInt16 = lecternProtocolVersion, challenge: [UInt8],
        maxFrameLength: UInt32 = ProtocolLimits.maxFrameLength,
        pingIntervalMs: UInt32 = UInt32(ProtocolLimits.pingIntervalSeconds * 1000),
        timeoutMs: UInt32 = UInt32(ProtocolLimits.peerTimeoutSeconds * 1000),
        presenter: KDFParameters?, moderator: KDFParameters?, room: String, server: String
    ) {
        self.version = version
        self.challenge = challenge
        self.maxFrameLength = maxFrameLength
        self.pingIntervalMs = pingIntervalMs
        self.timeoutMs = timeoutMs
        self.presenter = presenter
        self.moderator = moderator
        self.room = room
        self.server = server
    }

    /// A viewer's passcode (room or audience passcode, §24.1) is derived with the presenter's parameters.
    public func parameters(for role: Role) -> KDFParameters? { role == .moderator ? moderator : presenter }

    /// 32 fresh random bytes for a new connection's hello; keep them to verify its register.
    public static func freshChallenge() -> [UInt8] { randomBytes(ProtocolLimits.challengeLength) }
}

/// register (0x01).
public struct RegisterRequest: Equatable, Sendable {
    public var version: UInt16
    public var role: Role
    /// HMAC-SHA256 proof, 32 bytes (see `RegisterProof`).
    public var proof: [UInt8]
    public var resumeToken: ResumeToken?
    public var name: String

    public init(version: UInt16 = lecternProtocolVersion, role: Role, proof: [UInt8], resumeToken: ResumeToken?, name: String) {
        self.version = version
        self.role = role
        self.proof = proof
        self.resumeToken = resumeToken
        self.name = name
    }
}

/// register-ok (0x02).
public struct RegisterOK: Equatable, Sendable {
    public var deviceID: DeviceID
    public var role: Role
    /// The earlier id came back (the resume token was valid).
    public var resumed: Bool
    /// The floor came back too.
    public var floorRestored: Bool
    public var resumeToken: ResumeToken

    public init(deviceID: DeviceID, role: Role, resumed: Bool, floorRestored: Bool, resumeToken: ResumeToken) {
        self.deviceID = deviceID
        self.role = role
        self.resumed = resumed
        self.floorRestored = floorRestored
        self.resumeToken = resumeToken
    }
}

/// floor-ack (0x07): the answer to floor-request.
public enum FloorAck: Equatable, Sendable {
    /// You have the floor now.
    case holder
    /// You are in the queue at this 1-based position.
    case queued(position: UInt16)
}
