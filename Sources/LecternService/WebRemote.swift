import Crypto
import Foundation
import LecternProtocol
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

// The web remote (issue 7): a small HTTP server on `http_port` that serves the web app
// (index.html, lectern.css, lectern.js from `Web/`) and, at `/ws`, carries the wire
// protocol over a WebSocket: every binary message from the browser is bytes of protocol
// frames (the room's decoder takes any slicing), and every frame the room sends goes out
// as one binary message. One protocol, one set of rules: the browser is just another peer
// of the `Room`, like a TCP connection.

extension Service {
    /// How long the web remote waits before trying its port again when it is taken.
    static let webRemoteRetrySeconds: Int64 = 10

    /// Starts the web remote (HTTP + WebSocket) if configured (`http_port`, nil = off).
    ///
    /// A port that is taken does not stop the service: the projector and the wire protocol
    /// keep working (a restart loop would black out the room), the log says why browsers
    /// can't join, and the port is tried again every 10 s until it is free.
    func startWebRemote(group: EventLoopGroup) throws {
        guard let wanted = options.config.httpPort else {
            logger.info("web remote: off (http_port = 0)")
            return
        }
        let assets = WebAssets.load(logger: logger)
        let server = WebRemoteServer(group: group, room: room, assets: assets, logger: logger)
        let host = options.host, logger = self.logger
        do {
            let bound = try server.bind(host: host, port: wanted).wait()
            listening(server, port: bound, assets: assets)
        } catch {
            logger.error("web remote: can't listen on http_port \(wanted): \(error). Browsers can't join until it is free (another program on that port?); trying again every \(Self.webRemoteRetrySeconds) s. http_port = 0 turns the web remote off.")
            retryWebRemote(server, host: host, port: wanted, assets: assets, loop: group.next())
        }
    }

    private func retryWebRemote(_ server: WebRemoteServer, host: String, port: Int, assets: WebAssets, loop: EventLoop) {
        loop.scheduleTask(in: .seconds(Self.webRemoteRetrySeconds)) { [weak self] in
            guard let self else { return }
            server.bind(host: host, port: port).whenComplete { [weak self] result in
                guard let self else { return }
                switch result {
                case .success(let bound): self.listening(server, port: bound, assets: assets)
                case .failure: self.retryWebRemote(server, host: host, port: port, assets: assets, loop: loop)
                }
            }
        }
    }

    private func listening(_ server: WebRemoteServer, port: Int, assets: WebAssets) {
        setWebRemote(server, port: port)
        logger.info("web remote: http://\(options.host):\(port)/ (files from \(assets.source))")
    }
}

// MARK: the files

/// The web app's files, read once at start: served from memory with their type and an
/// ETag. Looked for in `$LECTERN_WEB_DIR` (development), the build's resource bundle
/// (`Bundle.module`, `swift build`/`make run`), and `/usr/share/lectern/web` (the .deb).
struct WebAssets: Sendable {
    struct File: Sendable {
        let body: [UInt8]
        let contentType: String
        let etag: String
    }

    static let installedDirectory = "/usr/share/lectern/web"
    /// The files the app is made of; all three must be in one directory.
    static let required = ["index.html", "lectern.css", "lectern.js"]
    static let types = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon", "txt": "text/plain; charset=utf-8",
        "webmanifest": "application/manifest+json",
    ]

    /// URL path ("/lectern.js") → file.
    let files: [String: File]
    /// Where they came from (for the log), or why there are none.
    let source: String
    var isComplete: Bool { Self.required.allSatisfy { files["/" + $0] != nil } }

    static func candidates() -> [String] {
        var dirs: [String] = []
        if let env = ProcessInfo.processInfo.environment["LECTERN_WEB_DIR"], !env.isEmpty { dirs.append(env) }
        if let bundled = bundledDirectory() { dirs.append(bundled) }
        dirs.append(installedDirectory)
        return dirs
    }

    /// The `Web` folder of the resource bundle, when the bundle is where SwiftPM's accessor
    /// looks first (next to the executable). `Bundle.module` stops the process when it finds
    /// no bundle at all, which is the case for an installed binary: so look before touching it.
    static func bundledDirectory() -> String? {
        #if os(Linux)
        let bundleName = "Lectern_LecternService.resources"
        #else
        let bundleName = "Lectern_LecternService.bundle"
        #endif
        let next = Bundle.main.bundleURL.appendingPathComponent(bundleName).path
        guard FileManager.default.fileExists(atPath: next) else { return nil }
        return Bundle.module.url(forResource: "Web", withExtension: nil)?.path
    }

    static func load(logger: Logger) -> WebAssets {
        let tried = candidates()
        for dir in tried {
            let assets = load(directory: dir)
            if assets.isComplete { return assets }
        }
        logger.error("web remote: its files (\(required.joined(separator: ", "))) are in none of \(tried.joined(separator: ", ")): the page will say so (reinstall the lectern package)")
        return WebAssets(files: [:], source: "nowhere (looked in \(tried.joined(separator: ", ")))")
    }

    static func load(directory: String) -> WebAssets {
        var files: [String: File] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names {
            let ext = (name as NSString).pathExtension.lowercased()
            guard let type = types[ext], !name.hasPrefix("."),
                  let data = FileManager.default.contents(atPath: directory + "/" + name) else { continue }
            let digest = SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
            files["/" + name] = File(body: [UInt8](data), contentType: type, etag: "\"\(digest)\"")
        }
        return WebAssets(files: files, source: directory)
    }
}

// MARK: the server

/// The HTTP listener of the web remote and its WebSocket upgrade at `/ws`.
final class WebRemoteServer: @unchecked Sendable {
    static let webSocketPath = "/ws"
    /// The largest WebSocket frame accepted from a browser: one whole protocol frame of the
    /// largest size (browsers send a message as one frame; pieces of frames are fine too).
    static let maxWebSocketFrame = Int(ProtocolLimits.maxFrameLength)

    let group: EventLoopGroup
    let room: Room
    let assets: WebAssets
    let logger: Logger
    private let lock = NSLock()
    private var channel: Channel?

    init(group: EventLoopGroup, room: Room, assets: WebAssets, logger: Logger) {
        self.group = group
        self.room = room
        self.assets = assets
        self.logger = logger
    }

    /// Binds `host:port` (port 0: any free port); succeeds with the port bound.
    func bind(host: String, port: Int) -> EventLoopFuture<Int> {
        let room = self.room, assets = self.assets
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let http = WebHTTPHandler(assets: assets)
                    let upgrader = NIOWebSocketServerUpgrader(
                        maxFrameSize: Self.maxWebSocketFrame,
                        automaticErrorHandling: true,
                        shouldUpgrade: { channel, head in
                            let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
                            return channel.eventLoop.makeSucceededFuture(path == Self.webSocketPath ? HTTPHeaders() : nil)
                        },
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(WebSocketPeerHandler(room: room))
                            }
                        })
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { context in
                            // The HTTP handler has nothing more to do on an upgraded connection.
                            context.pipeline.removeHandler(http, promise: nil)
                        }))
                    try channel.pipeline.syncOperations.addHandler(http)
                }
            }
        return bootstrap.bind(host: host, port: port).map { [self] ch in
            lock.lock(); channel = ch; lock.unlock()
            return ch.localAddress?.port ?? port
        }
    }

    func stop() {
        lock.lock(); let ch = channel; lock.unlock()
        try? ch?.close().wait()
    }
}

/// Answers plain HTTP requests: the app's files, 404 for anything else.
final class WebHTTPHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let assets: WebAssets
    private var head: HTTPRequestHead?

    init(assets: WebAssets) { self.assets = assets }

    /// Sent with every answer: nothing from elsewhere may run in or frame the page.
    static let securityHeaders: [(String, String)] = [
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"),
    ]

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h): head = h
        case .body: break   // GET and HEAD have none worth reading
        case .end:
            if let h = head { respond(to: h, context: context) }
            head = nil
        }
    }

    private func respond(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
        var headers = HTTPHeaders(Self.securityHeaders)
        guard request.method == .GET || request.method == .HEAD else {
            headers.add(name: "Allow", value: "GET, HEAD")
            return send(.methodNotAllowed, text: "Only GET and HEAD are answered here.\n", headers: headers, request: request, context: context)
        }
        if path == WebRemoteServer.webSocketPath {
            headers.add(name: "Upgrade", value: "websocket")
            headers.add(name: "Connection", value: "Upgrade")
            return send(.upgradeRequired, text: "This address is the web remote's WebSocket: connect with a WebSocket client.\n",
                        headers: headers, request: request, context: context)
        }
        if assets.files.isEmpty && (path == "/" || path == "/index.html") {
            return send(.serviceUnavailable, text: "The web remote's files are missing on this appliance (looked in \(assets.source)). Reinstall the lectern package.\n",
                        headers: headers, request: request, context: context)
        }
        guard let file = assets.files[path == "/" ? "/index.html" : path] else {
            return send(.notFound, text: "Not found.\n", headers: headers, request: request, context: context)
        }
        headers.add(name: "ETag", value: file.etag)
        // Always revalidate: the names don't change between versions, the ETag does.
        headers.add(name: "Cache-Control", value: "no-cache")
        if request.headers["If-None-Match"].contains(where: { $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == file.etag } }) {
            return send(.notModified, body: nil, contentType: nil, headers: headers, request: request, context: context)
        }
        send(.ok, body: file.body, contentType: file.contentType, headers: headers, request: request, context: context)
    }

    private func send(_ status: HTTPResponseStatus, text: String, headers: HTTPHeaders, request: HTTPRequestHead, context: ChannelHandlerContext) {
        var h = headers
        h.add(name: "Cache-Control", value: "no-store")
        send(status, body: Array(text.utf8), contentType: "text/plain; charset=utf-8", headers: h, request: request, context: context)
    }

    private func send(_ status: HTTPResponseStatus, body: [UInt8]?, contentType: String?, headers: HTTPHeaders,
                      request: HTTPRequestHead, context: ChannelHandlerContext) {
        var h = headers
        if let contentType { h.add(name: "Content-Type", value: contentType) }
        h.add(name: "Content-Length", value: String(body?.count ?? 0))
        let keepAlive = request.isKeepAlive
        h.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: h))), promise: nil)
        if let body, request.method != .HEAD, !body.isEmpty {
            var buf = context.channel.allocator.buffer(capacity: body.count)
            buf.writeBytes(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buf))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}

// MARK: the WebSocket peer

/// A browser's WebSocket as a peer transport: each frame the room sends is one binary message.
final class WebSocketTransport: PeerTransport {
    let channel: Channel
    init(_ channel: Channel) { self.channel = channel }
    var remoteAddress: String { channel.remoteAddress?.ipAddress ?? "?" }
    var isWritable: Bool { channel.isWritable }

    func write(_ bytes: [UInt8]) {
        var buf = channel.allocator.buffer(capacity: bytes.count)
        buf.writeBytes(bytes)
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .binary, data: buf), promise: nil)
    }

    func setReading(_ on: Bool) { channel.setOption(ChannelOptions.autoRead, value: on).whenComplete { _ in } }

    /// A closing handshake (1000), then the TCP connection closes: what was written before
    /// (a fatal error) goes out first.
    func close() {
        let channel = self.channel
        var data = channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: .normalClosure)
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}

/// Hands one WebSocket's protocol bytes to the room (on the room's loop), answers
/// WebSocket pings and closes.
final class WebSocketPeerHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let room: Room
    var id: ConnectionID?
    /// Inside a fragmented binary message (continuation frames carry more of it).
    private var inBinaryMessage = false
    private var inTextMessage = false
    private var closing = false

    init(room: Room) { self.room = room }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added once the upgrade is done: the channel is already active.
        let transport = WebSocketTransport(context.channel)
        room.loop.execute { [self] in id = room.accept(transport) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .binary:
            inBinaryMessage = !frame.fin
            deliver(frame.unmaskedData)
        case .continuation:
            if inBinaryMessage {
                deliver(frame.unmaskedData)
                if frame.fin { inBinaryMessage = false }
            } else if inTextMessage, frame.fin {
                inTextMessage = false
            }
        case .text:
            // The protocol is binary; text is a client that doesn't speak it.
            inTextMessage = !frame.fin
            closeWith(.unacceptableData, context: context)
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            // Answer the closing handshake, then close.
            if closing {
                context.close(promise: nil)
            } else {
                closing = true
                var data = frame.unmaskedData
                let code = data.readSlice(length: 2) ?? context.channel.allocator.buffer(capacity: 0)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: code))).whenComplete { _ in
                    channel.close(promise: nil)
                }
            }
        default:
            break
        }
    }

    private func deliver(_ bytes: ByteBuffer) {
        guard bytes.readableBytes > 0 else { return }
        room.loop.execute { [self] in if let id { room.received(id, bytes) } }
    }

    private func closeWith(_ code: WebSocketErrorCode, context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        room.loop.execute { [self] in if let id { room.closed(id) } }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
