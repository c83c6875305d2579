import Foundation
import LecternCore
import LecternProtocol
import NIOCore
import NIOPosix
import NIOSSL

/// The client side of the wire protocol (docs/protocol.md), blocking, for the CLI and
/// tests: connect, read hello, register with a proof, then requests matched by tag.
/// Pings are answered on the connection's own thread, so a client that is busy in a long
/// upload keeps its connection alive.
public final class LecternConnection: @unchecked Sendable {
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

    private let channel: Channel
    let inbox = Inbox()
    public let hello: Hello
    public private(set) var deviceID: DeviceID = 0xFF
    public private(set) var registration: RegisterOK?
    private var nextTag: UInt16 = 0
    private let tagLock = NSLock()
    public var timeout: Double = 30
    /// Over TLS: the certificate the appliance presented (nil: plain).
    public let certificate: CertificateFingerprint?

    /// Connects and waits for hello; with `tls`, over TLS, going on only when `tls.accept`
    /// takes the certificate's fingerprint (pinning: docs/protocol.md §25.5).
    public init(host: String, port: Int, timeout: Double = 10, tls: ClientTLS? = nil) throws {
        let inbox = self.inbox
        let watch = TLSWatch()
        let sslContext: NIOSSLContext?
        if tls != nil {
            var c = TLSConfiguration.makeClientConfiguration()
            c.minimumTLSVersion = .tlsv12
            sslContext = try NIOSSLContext(configuration: c)
        } else {
            sslContext = nil
        }
        // SNI carries names only, never an address.
        let sniName = TLSIdentityName.isAddress(host) ? nil : host
        let bootstrap = ClientBootstrap(group: Self.group)
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
        deviceID = ok.deviceID
        registration = ok
        return ok
    }

    // MARK: requests

    func newTag() -> UInt16 {
        tagLock.lock(); defer { tagLock.unlock() }
        nextTag = nextTag == 0xFFFF ? 1 : nextTag + 1
        return nextTag
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
    private func image(tag: UInt16, what: String) throws -> Data {
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

    /// Uploads a file: hashes it, offers a possession proof (so a file the appliance has is
    /// not sent again), streams the missing chunks, verifies. `progress(sent, total)` is
    /// called as the server confirms bytes.
    public func upload(
        path: String, name: String? = nil, kind: ContentKind? = nil,
        progress: ((UInt64, UInt64) -> Void)? = nil
    ) throws -> UploadStored {
        let url = URL(fileURLWithPath: path)
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw ClientError.unexpected("can't read \(path)") }
        defer { try? handle.close() }
        var hasher = ContentHasher()
        var possession = PossessionProof(challenge: hello.challenge)
        var size: UInt64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(chunk); possession.update(chunk); size += UInt64(chunk.count)
        }
        let id = hasher.finalize()
        let begin = UploadBegin(
            content: id, size: size, kind: kind, proof: possession.finalize(),
            name: name ?? url.lastPathComponent)
        let beginTag = send(.uploadBegin(begin))
        guard case .uploadReady(let ready) = try reply(tag: beginTag, what: "upload-ready") else {
            throw ClientError.unexpected("upload-ready")
        }
        if ready.status == .stored {
            progress?(size, size)
            return UploadStored(content: id, kind: ready.kind ?? .pdf, size: size, pageCount: ready.pageCount, durationMs: ready.durationMs)
        }
        progress?(ready.offset, size)
        try handle.seek(toOffset: ready.offset)
        var chunkTags: [UInt16] = []
        for range in UploadPlan.chunks(size: size, from: ready.offset) {
            guard inbox.waitUntilWritable(timeout: timeout) else {
                throw channel.isActive ? ClientError.timedOut("upload") : ClientError.closed
            }
            chunkTags.append(try sendChunk(id, range, from: handle.fileDescriptor, path: path))
            // A failed chunk is answered with its tag: stop at the first one.
            if let failure = inbox.firstFailure(tags: chunkTags) { throw ClientError.server(failure) }
            while let m = inbox.next(tag: beginTag, command: Command.uploadProgress.rawValue, timeout: 0) {
                if case .uploadProgress(_, let stored) = m { progress?(stored, size) }
            }
        }
        let finishTag = send(.uploadFinish(content: id))
        while true {
            if let failure = inbox.firstFailure(tags: chunkTags) { throw ClientError.server(failure) }
            if let m = inbox.next(tag: beginTag, command: Command.uploadProgress.rawValue, timeout: 0) {
                if case .uploadProgress(_, let stored) = m { progress?(stored, size) }
                continue
            }
            if let m = inbox.next(tag: finishTag, command: nil, timeout: 0.05) {
                if let e = m.error { throw ClientError.server(e) }
                guard case .uploadStored(let stored) = m else { throw ClientError.unexpected("\(m.command)") }
                progress?(size, size)
                return stored
            }
            if !channel.isActive { throw ClientError.closed }
        }
    }

    /// Sends one upload-chunk whose data is read from `fd` straight into the frame's buffer.
    private func sendChunk(_ id: ContentID, _ range: Range<UInt64>, from fd: Int32, path: String) throws -> UInt16 {
        let tag = newTag()
        let count = Int(range.count)
        var prefix = ByteWriter(capacity: FrameHeader.size + 40)
        FrameHeader(
            command: Command.uploadChunk.rawValue, deviceID: deviceID, tag: tag,
            length: UInt32(FrameHeader.size + 40 + count)
        ).encode(into: &prefix)
        prefix.bytes(id.bytes)
        prefix.u64(range.lowerBound)
        var buf = channel.allocator.buffer(capacity: prefix.bytes.count + count)
        buf.writeBytes(prefix.bytes)
        var read = 0
        while read < count {
            let n = buf.writeWithUnsafeMutableBytes(minimumWritableBytes: count - read) { out in
                max(0, pread(fd, out.baseAddress, count - read, off_t(range.lowerBound) + off_t(read)))
            }
            if n == 0 { throw ClientError.unexpected("\(path) changed while uploading") }
            read += n
        }
        channel.writeAndFlush(buf, promise: nil)
        return tag
    }
}

/// Decodes frames, answers pings, and files every message by tag.
final class ClientHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    let inbox: Inbox
    let watch: TLSWatch?
    var decoder = FrameDecoder(maxFrameLength: ProtocolLimits.maxFrameLength)
    init(inbox: Inbox, watch: TLSWatch? = nil) {
        self.inbox = inbox
        self.watch = watch
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buf = unwrapInboundIn(data)
        decoder.feed(buf.readableBytesView)
        while true {
            let frame: WireFrame?
            do { frame = try decoder.next() } catch { context.close(promise: nil); return }
            guard let frame else { return }
            guard let m = try? Message.decode(frame, sentBy: .server) else { continue }
            if case .ping(let n) = m {
                let bytes = Message.pong(nonce: n).encode(tag: frame.header.tag, deviceID: frame.header.deviceID == 0 ? 0xFF : frame.header.deviceID)
                var out = context.channel.allocator.buffer(capacity: bytes.count)
                out.writeBytes(bytes)
                context.writeAndFlush(NIOAny(out), promise: nil)
                continue
            }
            inbox.put(m, tag: frame.header.tag)
        }
    }

    func channelInactive(context: ChannelHandlerContext) { inbox.close() }
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        inbox.setWritable(context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }
    func errorCaught(context: ChannelHandlerContext, error: Error) {
        watch?.failed(error)
        context.close(promise: nil)
    }
}

/// Messages received, waiting to be taken by tag.
final class Inbox: @unchecked Sendable {
    private let cond = NSCondition()
    private var items: [(tag: UInt16, message: Message)] = []
    private var closed = false
    private(set) var latestState: Snapshot? {
        get { cond.lock(); defer { cond.unlock() }; return _latest }
        set { _latest = newValue }
    }
    private var _latest: Snapshot?

    func put(_ m: Message, tag: UInt16) {
        cond.lock()
        if case .state(let s) = m, tag == 0 || _latest == nil || s.revision > (_latest?.revision ?? 0) { _latest = s }
        items.append((tag, m))
        // Nobody may be reading pushes (a long upload): keep only the newest 256 of them.
        if tag == 0, items.count > 512 {
            var unsolicited = items.filter { $0.tag == 0 }.count
            items.removeAll { item in
                guard item.tag == 0, unsolicited > 256 else { return false }
                unsolicited -= 1
                return true
            }
        }
        cond.broadcast()
        cond.unlock()
    }

    func close() { cond.lock(); closed = true; cond.broadcast(); cond.unlock() }

    private var writable = true
    func setWritable(_ w: Bool) { cond.lock(); writable = w; cond.broadcast(); cond.unlock() }

    /// Waits until the connection takes more data (or is closed); false on time-out or close.
    func waitUntilWritable(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        cond.lock(); defer { cond.unlock() }
        while !writable && !closed && Date() < deadline { cond.wait(until: deadline) }
        return writable && !closed
    }

    /// Takes the first message with `tag` (and `command`, if given), waiting up to `timeout`.
    func next(tag: UInt16, command: UInt8?, timeout: Double) -> Message? {
        let deadline = Date().addingTimeInterval(timeout)
        cond.lock(); defer { cond.unlock() }
        while true {
            if let i = items.firstIndex(where: { $0.tag == tag && (command == nil || $0.message.command.rawValue == command) }) {
                return items.remove(at: i).message
            }
            if closed || Date() >= deadline { return nil }
            cond.wait(until: deadline)
        }
    }

    /// The first error addressed to any of `tags`, taken.
    func firstFailure(tags: [UInt16]) -> LecternError? {
        cond.lock(); defer { cond.unlock() }
        let set = Set(tags)
        if let i = items.firstIndex(where: { set.contains($0.tag) && $0.message.error != nil }) {
            return items.remove(at: i).message.error
        }
        return nil
    }
}
