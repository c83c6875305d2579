/// What a new connection on either port becomes, from its first byte (docs/protocol.md
/// §25.5): one port serves TLS and, when the admin allows it, plain. Pure: the shell
/// (`TransportSniffer`) reads the byte, arms the timer and builds the pipeline.
public struct TransportPolicy: Equatable, Sendable {
    /// A TLS record of type handshake (a ClientHello) starts with this byte; no HTTP
    /// request does, and no plain protocol client starts with it: it waits for hello and
    /// then sends register (0x01). (0x16 is state-request, which only makes sense later.)
    public static let tlsHandshakeByte: UInt8 = 0x16
    /// How long the protocol port waits for a client's first byte before it takes the
    /// client for a plain one (which waits for hello, as the protocol begins): a TLS client
    /// speaks at once.
    public static let plainHelloDelay = 0.5

    /// The certificate is loaded: TLS is offered.
    public var tls: Bool
    /// Plain connections are accepted too (`allow_plain`, or TLS off).
    public var allowPlain: Bool

    public init(tls: Bool, allowPlain: Bool) {
        self.tls = tls
        self.allowPlain = allowPlain || !tls
    }

    public enum Choice: Equatable, Sendable {
        /// Put TLS in front of the connection.
        case tls
        /// Carry on in plain.
        case plain
        /// Refuse: say why in the connection's own terms (an error frame, an HTTP redirect).
        case refusePlain
    }

    /// The first byte a client sent (nil: it sent nothing within `plainHelloDelay`).
    public func choose(firstByte: UInt8?) -> Choice {
        if tls, firstByte == Self.tlsHandshakeByte { return .tls }
        return allowPlain ? .plain : .refusePlain
    }

    /// Whether the connection is looked at before anything else: without TLS every
    /// connection is plain at once (the protocol port sends hello without waiting).
    public var sniffs: Bool { tls }
}
