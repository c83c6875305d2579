import Foundation
import LecternModel
import LecternProtocol
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

/// A TLS client with no protocol logic (no pongs), pinned to the appliance's certificate:
/// it reads only when told to, as fast or as slowly as told, so a test can be the peer that
/// asks for something big and never reads it, or reads it a little at a time.
public final class TLSProbe: Sendable {
    private static let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    /// One client context for every probe (no CA roots loaded: the pin is the check).
    private static let context = Result { () throws -> NIOSSLContext in
        var c = TLSConfiguration.makeClientConfiguration()
        c.minimumTLSVersion = .tlsv12
        c.trustRoots = .certificates([])
        return try NIOSSLContext(configuration: c)
    }
    private let channel: Channel
    private let sink: Sink

    /// Connects to `host:port` (from the local address `source` when given) and completes
    /// the handshake, accepting only the certificate with `fingerprint`. `keep`: keep the
    /// bytes read (else they are only counted and hashed).
    public init(host: String = "127.0.0.1", port: Int, from source: String? = nil, fingerprint: CertificateFingerprint, keep: Bool = true, timeout: Double = 10) throws {
        let context = try Self.context.get()
        let sink = Sink(keep: keep)
        self.sink = sink
        var bootstrap = ClientBootstrap(group: Self.group)
            .channelOption(ChannelOptions.autoRead, value: false)
            .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 16 << 10))
            .connectTimeout(.milliseconds(Int64(timeout * 1000)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let tls = try NIOSSLClientHandler(context: context, serverHostname: nil) { certificates, promise in
                        guard let der = try? certificates.first?.toDERBytes() else { return promise.succeed(.failed) }
                        promise.succeed(CertificateFingerprint(der: der) == fingerprint ? .certificateVerified : .failed)
                    }
                    try channel.pipeline.syncOperations.addHandlers([tls, sink])
                }
            }
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        channel = try bootstrap.connect(host: host, port: port).wait()
        // The handshake needs reading: read until it is done (or the connection is gone).
        sink.setReading(true, channel)
        try eventually("the TLS handshake with \(host):\(port)", timeout: timeout, interval: 0.005) { sink.handshaken || sink.closed }
        guard sink.handshaken else {
            channel.close(promise: nil)
            throw Fixtures.ToolError(description: "\(host):\(port) closed the connection during the TLS handshake")
        }
        sink.setReading(false, channel)
    }

    deinit { channel.close(promise: nil) }

    public func send(_ bytes: [UInt8]) {
        var buf = channel.allocator.buffer(capacity: bytes.count)
        buf.writeBytes(bytes)
        channel.writeAndFlush(buf, promise: nil)
    }

    /// Reads (as fast as the bytes come) until `enough` says so or `timeout` passes; returns
    /// everything kept so far. Reading stops again after.
    @discardableResult
    public func read(timeout: Double, until enough: ([UInt8]) -> Bool) -> [UInt8] {
        sink.setReading(true, channel)
        defer { sink.setReading(false, channel) }
        _ = try? eventually("bytes", timeout: timeout, interval: 0.002) { enough(sink.kept) || sink.closed }
        return sink.kept
    }

    /// Reads one buffer's worth (at most 16 KiB) now.
    public func readOnce() { channel.read() }

    /// What was read so far (when keeping), its count and SHA-256 (always).
    public var received: [UInt8] { sink.kept }
    public var receivedCount: Int { sink.count }
    public var isClosed: Bool { sink.closed }
    public func dropKept(first n: Int) { sink.drop(n) }
    /// The bytes kept so far, forgotten here.
    public func take() -> [UInt8] { sink.take() }

    public func close() { try? channel.close().wait() }
}

/// Collects what the probe reads.
private final class Sink: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    private struct State {
        var bytes: [UInt8] = []
        var total = 0
        var reading = false
        var done = false
        var tlsDone = false
    }
    private let keep: Bool
    private let state = Mutex(State())

    init(keep: Bool) { self.keep = keep }

    var kept: [UInt8] { state.withLock { $0.bytes } }
    var count: Int { state.withLock { $0.total } }
    var closed: Bool { state.withLock { $0.done } }
    var handshaken: Bool { state.withLock { $0.tlsDone } }
    func drop(_ n: Int) { state.withLock { $0.bytes.removeFirst(min(n, $0.bytes.count)) } }
    func take() -> [UInt8] {
        state.withLock { state in
            defer { state.bytes = [] }
            return state.bytes
        }
    }

    func setReading(_ on: Bool, _ channel: Channel) {
        state.withLock { $0.reading = on }
        if on { channel.read() }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buf = unwrapInboundIn(data)
        let keep = self.keep
        state.withLock {
            $0.total += buf.readableBytes
            if keep { $0.bytes += buf.readableBytesView }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if state.withLock({ $0.reading }) { context.read() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted? = event as? TLSUserEvent { state.withLock { $0.tlsDone = true } }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.withLock { $0.done = true }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
}
