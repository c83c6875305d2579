import Foundation
import LecternModel
import LecternSystem
import Logging
import NIOCore
import Synchronization
import NIOHTTP1
import NIOPosix

/// The Prometheus scrape endpoint: `GET /metrics` on `metrics_address` (off by default),
/// a listener of its own so it can stay on localhost (or a management network) while the
/// web remote faces the room. Bounded like every input (`ScrapeGate`): at most 8
/// connections at once, the request head within 2 s, 10 s for the whole exchange, one
/// request per connection (NIO's HTTP parser bounds the head); a newcomer takes the place
/// of the oldest connection still without a complete head, so slow peers can't lock out a
/// scrape. Anything but `GET /metrics` gets 404 or 405.
final class MetricsServer: Sendable {
    static let limits = ScrapeGate.Limits()

    private let group: EventLoopGroup
    /// Called on the connection's loop for each scrape; returns the exposition.
    private let scrape: @Sendable (EventLoop) -> EventLoopFuture<[UInt8]>
    /// The listening channel, the gate and the connections it admitted (any loop).
    private struct State {
        var channel: Channel?
        var gate = ScrapeGate(limits: MetricsServer.limits)
        var channels: [Int: Channel] = [:]
        var nextID = 1
    }
    private let state = Mutex(State())

    init(group: EventLoopGroup, scrape: @escaping @Sendable (EventLoop) -> EventLoopFuture<[UInt8]>) {
        self.group = group
        self.scrape = scrape
    }

    func bind(host: String, port: Int) throws -> Int {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 16)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
            .childChannelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 4096))
            .childChannelInitializer { [self] channel in
                let now = MonotonicClock.now()
                let (id, decision, victim) = state.withLock { s -> (Int, ScrapeGate.Decision, Channel?) in
                    let id = s.nextID
                    s.nextID += 1
                    let d = s.gate.arrive(id, now: now)
                    guard case .admit(let evicting) = d else { return (id, d, nil) }
                    s.channels[id] = channel
                    return (id, d, evicting.flatMap { s.channels.removeValue(forKey: $0) })
                }
                victim?.close(promise: nil)
                guard case .admit = decision else { return channel.close() }
                channel.closeFuture.whenComplete { [self] _ in
                    state.withLock {
                        $0.gate.closed(id)
                        $0.channels[id] = nil
                    }
                }
                let headReceived: @Sendable () -> Void = { [self] in state.withLock { $0.gate.headReceived(id) } }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(scrape: scrape, headReceived: headReceived))
                    // At the head's deadline and at the exchange's: closed if past it.
                    for t in [Self.limits.headTimeout, Self.limits.exchangeTimeout] {
                        channel.eventLoop.scheduleTask(in: .milliseconds(Int64(t * 1000))) { [self] in
                            if state.withLock({ $0.gate.expired(id, now: MonotonicClock.now()) }) { channel.close(promise: nil) }
                        }
                    }
                }
            }
        let ch = try bootstrap.bind(host: host, port: port).wait()
        state.withLock { $0.channel = ch }
        return ch.localAddress?.port ?? port
    }

    func stop() {
        let ch = state.withLock { $0.channel }
        try? ch?.close().wait()
    }
}

/// One scrape per connection: answers `GET /metrics` (and `HEAD`), then closes.
private final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private let scrape: @Sendable (EventLoop) -> EventLoopFuture<[UInt8]>
    private let headReceived: @Sendable () -> Void
    private var head: HTTPRequestHead?
    private var answered = false

    init(scrape: @escaping @Sendable (EventLoop) -> EventLoopFuture<[UInt8]>, headReceived: @escaping @Sendable () -> Void) {
        self.scrape = scrape
        self.headReceived = headReceived
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            headReceived()
        case .body: return
        case .end:
            guard let h = head, !answered else { return }
            answered = true
            let path = h.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? h.uri
            guard path == "/metrics" else { return respond(context, .notFound, Array("not found: the metrics are at /metrics\n".utf8)) }
            guard h.method == .GET || h.method == .HEAD else { return respond(context, .methodNotAllowed, Array("GET /metrics\n".utf8)) }
            // The scrape completes on the channel's loop, where the handler and its context live.
            let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
            let me = NIOLoopBound(self, eventLoop: context.eventLoop)
            let isHead = h.method == .HEAD
            scrape(context.eventLoop).whenComplete { result in
                switch result {
                case .success(let body): me.value.respond(ctx.value, .ok, body, isHead: isHead)
                case .failure(let e): me.value.respond(ctx.value, .internalServerError, Array("\(e)\n".utf8))
                }
            }
        }
    }

    private func respond(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ body: [UInt8], isHead: Bool = false) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: status == .ok ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(body.count)")
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Cache-Control", value: "no-store")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if !isHead { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil) }
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in ctx.value.close(promise: nil) }
    }
}
