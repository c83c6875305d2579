import Foundation
import LecternModel
import LecternProtocol
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// The client side of the wire protocol (docs/protocol.md), blocking, for the CLI and
/// tests: connect, read hello, register with a proof, then requests matched by tag.
/// Pings are answered on the connection's own thread, so a client that is busy in a long
/// upload keeps its connection alive.
public final class LecternConnection: Sendable {
    public enum ClientError: Error, CustomStringConvertible, Equatable {
        /// The server answered with an error.
        case server(LecternError)
        case timedOut(String)
        case closed
        case connect(String)
        case unexpected(String)
        /// TLS: the appliance's certificate was not the one expected (`ClientTLS.accept` said no).
        case certificateRefused(CertificateFingerprint)
        /// TLS was asked for but the other end doesn't speak it (a room with `tls = false`).
        case notTLS(String)

        public var description: String {
            switch self {
            case .server(let e): return e.message
            case .timedOut(let what): return "No answer from the appliance (\(what))."
            case .closed: return "The appliance closed the connection."
            case .connect(let why): return "Can't connect: \(why)"
            case .unexpected(let what): return "Unexpected answer from the appliance: \(what)"
            case .certificateRefused(let f): return "The appliance's certificate (\(f)) is not the one expected."
            case .notTLS(let why): return "The appliance does not answer with TLS (\(why))."
            }
        }

        public var lecternError: LecternError? { if case .server(let e) = self { return e }; return nil }
    }

    private static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    /// One TLS client context for every connection: making one loads the system's trust
    /// roots (unused: pinning replaces the chain check), which cost more than the handshake.
    private static let tlsContext = Result {
        var c = TLSConfiguration.makeClientConfiguration()
        c.minimumTLSVersion = .tlsv12
        return try NIOSSLContext(configuration: c)
    }

    let channel: Channel
    let inbox = Inbox()
    public let hello: Hello
    /// What registering set, the last tag handed out and the replies' time-out (any thread).
    private struct Settings {
        var deviceID: DeviceID = 0xFF
        var registration: RegisterOK?
        var nextTag: UInt16 = 0
        var timeout: Double = 30
    }
    private let settings = Mutex(Settings())
    public var deviceID: DeviceID { settings.withLock { $0.deviceID } }
    public var registration: RegisterOK? { settings.withLock { $0.registration } }
    public var timeout: Double {
        get { settings.withLock { $0.timeout } }
        set { settings.withLock { $0.timeout = newValue } }
    }
    /// Over TLS: the certificate the appliance presented (nil: plain).
    public let certificate: CertificateFingerprint?

    /// Connects and waits for hello; with `tls`, over TLS, going on only when `tls.accept`
    /// takes the certificate's fingerprint (pinning: docs/protocol.md §25.5). `source`: the
    /// local address to connect from (tests speaking from many loopback addresses).
    public init(host: String, port: Int, timeout: Double = 10, tls: ClientTLS? = nil, from source: String? = nil) throws {
        let inbox = self.inbox
        let watch = TLSWatch()
        let sslContext = tls == nil ? nil : try Self.tlsContext.get()
        // SNI carries names only, never an address.
        let sniName = TLSIdentityName.isAddress(host) ? nil : host
        var bootstrap = ClientBootstrap(group: Self.group)
            .channelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            // Uploads wait while more than 4 MiB are queued (a file is never read into memory whole).
            .channelOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 2 << 20, high: 4 << 20))
            .connectTimeout(.milliseconds(Int64(timeout * 1000)))
            .channelInitializer { channel in
                channel.pipeline.eventLoop.makeCompletedFuture {
                    if let sslContext, let tls {
                        let handler = try NIOSSLClientHandler(context: sslContext, serverHostname: sniName) { certificates, promise in
                            // Pinning replaces the usual chain and name checks: the fingerprint is the check.
                            guard let leaf = certificates.first, let der = try? leaf.toDERBytes() else { return promise.succeed(.failed) }
                            let f = CertificateFingerprint(der: der)
                            let ok = tls.accept(f)
                            watch.saw(f, accepted: ok)
                            promise.succeed(ok ? .certificateVerified : .failed)
                        }
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    try channel.pipeline.syncOperations.addHandler(ClientHandler(inbox: inbox, watch: watch))
                }
            }
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        do { channel = try bootstrap.connect(host: host, port: port).wait() } catch {
            throw ClientError.connect("\(host):\(port): \(error)")
        }
        guard case .hello(let h)? = inbox.next(tag: 0, command: Command.hello.rawValue, timeout: timeout) else {
            channel.close(promise: nil)
            if tls != nil {
                let (seen, accepted, failure) = watch.outcome
                if let seen, !accepted { throw ClientError.certificateRefused(seen) }
                if seen == nil, let failure { throw ClientError.notTLS("\(failure)") }
            }
            // Refused before hello (tooManyConnections): the server said why.
            if let e = inbox.firstFailure(tags: [0]) { throw ClientError.server(e) }
            throw ClientError.timedOut("hello")
        }
        hello = h
        certificate = tls == nil ? nil : watch.outcome.seen
    }

    deinit { channel.close(promise: nil) }

    public func close() { try? channel.close().wait() }

    public var isOpen: Bool { channel.isActive }

    // MARK: register

    /// Registers with the role's passcode (PBKDF2 with the parameters from hello).
    @discardableResult
    public func register(
        name: String, role: Role = .presenter, passcode: String,
        resumeToken: ResumeToken? = nil
    ) throws -> RegisterOK {
        guard let params = hello.parameters(for: role) else { throw ClientError.server(.roleUnavailable(role)) }
        let key = PasscodeHash.deriveKey(passcode: passcode, salt: params.salt, rounds: params.rounds)
        return try register(name: name, role: role, key: key, resumeToken: resumeToken)
    }

    /// Registers with an already derived key (tests that open hundreds of connections).
    @discardableResult
    public func register(name: String, role: Role, key: [UInt8], resumeToken: ResumeToken? = nil) throws -> RegisterOK {
        let proof = RegisterProof.compute(key: key, challenge: hello.challenge, role: role, name: name, resumeToken: resumeToken)
        let reply = try request(.register(RegisterRequest(role: role, proof: proof, resumeToken: resumeToken, name: name)))
        guard case .registerOK(let ok) = reply else { throw ClientError.unexpected("\(reply.command)") }
        settings.withLock {
            $0.deviceID = ok.deviceID
            $0.registration = ok
        }
        return ok
    }

    // MARK: requests

    func newTag() -> UInt16 {
        settings.withLock {
            $0.nextTag = $0.nextTag == 0xFFFF ? 1 : $0.nextTag + 1
            return $0.nextTag
        }
    }

    /// Sends a request without waiting; returns its tag.
    @discardableResult
    public func send(_ m: Message, tag: UInt16? = nil) -> UInt16 {
        let t = tag ?? newTag()
        sendRaw(m.encode(tag: t, deviceID: deviceID))
        return t
    }

    /// Writes raw bytes (tests of malformed input).
    public func sendRaw(_ bytes: [UInt8]) {
        var buf = channel.allocator.buffer(capacity: bytes.count)
        buf.writeBytes(bytes)
        channel.writeAndFlush(buf, promise: nil)
    }

    /// Sends a request and returns its direct reply; a failure reply throws `.server`.
    public func request(_ m: Message) throws -> Message {
        let tag = send(m)
        return try reply(tag: tag, what: "\(m.command)")
    }

    /// The next reply with `tag`.
    public func reply(tag: UInt16, what: String = "reply", timeout: Double? = nil) throws -> Message {
        guard let r = inbox.next(tag: tag, command: nil, timeout: timeout ?? self.timeout) else {
            if !channel.isActive { throw ClientError.closed }
            throw ClientError.timedOut(what)
        }
        if let e = r.error { throw ClientError.server(e) }
        return r
    }

    /// The next unsolicited message (state push, floor granted/withdrawn, error before close).
    public func nextEvent(timeout: Double) -> Message? { inbox.next(tag: 0, command: nil, timeout: timeout) }

    /// Waits until the newest state pushed satisfies `condition` (or the time-out passes).
    public func waitForState(timeout: Double = 10, _ condition: (Snapshot) -> Bool) throws -> Snapshot {
        let deadline = Date().addingTimeInterval(timeout)
        while inbox.next(tag: 0, command: Command.state.rawValue, timeout: 0) != nil {}   // skip to the newest
        if let s = inbox.latestState, condition(s) { return s }
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw ClientError.timedOut("state") }
            guard let m = inbox.next(tag: 0, command: Command.state.rawValue, timeout: left) else {
                if !channel.isActive { throw ClientError.closed }
                throw ClientError.timedOut("state")
            }
            if case .state(let s) = m, condition(s) { return s }
        }
    }

    /// The newest state the server pushed.
    public var latestState: Snapshot? { inbox.latestState }

    public func state() throws -> Snapshot {
        guard case .state(let s) = try request(.stateRequest) else { throw ClientError.unexpected("state") }
        return s
    }

    // MARK: commands

    public func control(_ s: ControlSignal) throws { _ = try request(.control(s)) }
    public func present(_ content: ContentID, page: UInt32 = 1) throws { _ = try request(.present(content: content, page: page)) }
    public func moderate(_ a: FloorAction, target: DeviceID) throws { _ = try request(.floorModerate(action: a, target: target)) }

    public func requestFloor() throws -> FloorAck {
        guard case .floorAck(let a) = try request(.floorRequest) else { throw ClientError.unexpected("floor ack") }
        return a
    }

    /// The frame on the output now, as PNG bytes.
    /// The frame on the output as PNG: exactly, or scaled to at most `maxWidth`×`maxHeight`.
    public func screenshot(maxWidth: UInt16 = 0, maxHeight: UInt16 = 0) throws -> Data {
        try image(tag: send(.screenshotRequest(maxWidth: maxWidth, maxHeight: maxHeight)), what: "screenshot")
    }

    /// A page of an upload as the output would show it, at most `maxWidth`×`maxHeight`
    /// (0 = the output's size on that side), as PNG (docs/protocol.md, page-preview).
    /// `notesHalf`: the notes half of a beamer notes deck (§20.3).
    public func pagePreview(_ content: ContentID, page: UInt32, maxWidth: UInt16, maxHeight: UInt16 = 0, notesHalf: Bool = false) throws -> Data {
        try image(
            tag: send(
                .pagePreview(PagePreviewRequest(content: content, page: page, maxWidth: maxWidth, maxHeight: maxHeight, notesHalf: notesHalf))),
            what: "page preview")
    }

    /// The speaker notes of `page` of an upload (0: every page), docs/protocol.md §20.2.
    public func notes(_ content: ContentID, page: UInt32) throws -> NotesReply {
        guard case .notes(let r) = try request(.notesRequest(NotesRequest(content: content, page: page))) else {
            throw ClientError.unexpected("notes")
        }
        return r
    }

    /// Collects the screenshot-data pieces answering the request sent with `tag`.
    func image(tag: UInt16, what: String) throws -> Data {
        var png = Data()
        while true {
            guard case .screenshotData(let piece) = try reply(tag: tag, what: what) else {
                throw ClientError.unexpected(what)
            }
            guard Int(piece.offset) == png.count else { throw ClientError.unexpected("\(what) piece out of order") }
            png.append(contentsOf: piece.data)
            if png.count >= Int(piece.totalSize) { return png }
        }
    }
}
