import Foundation
import LecternModel
import LecternSystem
import LecternProtocol
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Answers plain HTTP requests: the app's files, 404 for anything else; 403 for a
/// WebSocket upgrade from another site's page (`WebOrigin`); 503 on a connection the
/// `ConnectionGate` refused. One request at a time, with the head, idle and stall
/// deadlines of `HTTPConnectionPolicy`: the next request is answered (and read) only once
/// the previous response is out and the peer takes more.
///
/// Used on its channel's loop only (callbacks reach it through `NIOLoopBound`).
final class WebHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    struct Timeouts: Sendable {
        var head: Double = 5
        var idle: Double = 30
        var stall: Double = 5
    }

    let assets: WebAssets
    /// The connection was refused (too many): every request gets 503, then the close.
    let refusing: Bool
    let timeouts: Timeouts
    private let clock: @Sendable () -> Double
    private var head: HTTPRequestHead?
    /// A complete request waiting for the previous response to be written out.
    private var pending: HTTPRequestHead?
    private var policy: HTTPConnectionPolicy?
    private var timer: Scheduled<Void>?
    private var removed = false

    /// The deck viewers may download (§24.5), when the room offers one.
    private let download: DeckDownload?
    /// The slide for viewers (§24.2).
    private let pageImages: PageImages?
    /// The places for the download's pieces in memory, shared by the listener's connections.
    private let chunks: ChunkGate

    init(
        assets: WebAssets, refusing: Bool = false, timeouts: Timeouts = Timeouts(), download: DeckDownload? = nil, pageImages: PageImages? = nil,
        chunks: ChunkGate = ChunkGate(), clock: @escaping @Sendable () -> Double = { MonotonicClock.now() }
    ) {
        self.download = download
        self.pageImages = pageImages
        self.chunks = chunks
        self.assets = assets
        self.refusing = refusing
        self.timeouts = timeouts
        self.clock = clock
    }

    func handlerAdded(context: ChannelHandlerContext) {
        policy = HTTPConnectionPolicy(now: clock(), headTimeout: timeouts.head, idleTimeout: timeouts.idle, stallTimeout: timeouts.stall)
        policy?.writabilityChanged(context.channel.isWritable, now: clock())
        reschedule(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        removed = true
        if let id = waitingStream { chunks.leave(id) }
        timer?.cancel()
        timer = nil
    }

    /// Closes the connection when the policy says so; asks again at its next deadline.
    private func reschedule(_ context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        guard !removed, let policy else { return }
        switch policy.poll(now: clock()) {
        case .none: break
        case .closeHeadTimeout, .closeIdle, .closeStalled:
            context.close(promise: nil)
            return
        }
        guard let deadline = policy.deadline else { return }
        let ms = Int64(max(0, deadline - clock()) * 1000) + 5
        let here = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: .milliseconds(ms)) {
            let (handler, context) = here.value
            guard !handler.removed else { return }
            handler.reschedule(context)
        }
    }

    /// Sent with every answer: nothing from elsewhere may run in or frame the page.
    static let securityHeaders: [(String, String)] = [
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
        ),
    ]

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            policy?.headReceived(now: clock())
            reschedule(context)
        case .body: break   // GET and HEAD have none worth reading
        case .end:
            if let h = head {
                // HTTPServerPipelineHandler reads nothing more until this one is answered.
                if policy?.mayAnswer ?? true { answer(h, context: context) } else { pending = h }
            }
            head = nil
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        policy?.writabilityChanged(context.channel.isWritable, now: clock())
        answerPending(context)
        reschedule(context)
        context.fireChannelWritabilityChanged()
    }

    private func answerPending(_ context: ChannelHandlerContext) {
        guard let p = pending, policy?.mayAnswer ?? true else { return }
        pending = nil
        answer(p, context: context)
    }

    private func answer(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        policy?.responseStarted(now: clock())
        respond(to: request, context: context)
        reschedule(context)
    }

    /// The last part of a response is out (or failed): the next request may be answered.
    private func responseDone(_ context: ChannelHandlerContext) {
        guard !removed else { return }
        policy?.responseWritten(now: clock())
        answerPending(context)
        reschedule(context)
    }

    private func respond(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
        var headers = HTTPHeaders(Self.securityHeaders)
        if refusing {
            headers.add(name: "Retry-After", value: "5")
            var closing = request
            closing.headers.replaceOrAdd(name: "Connection", value: "close")
            return send(.serviceUnavailable, text: "Too many connections — try again shortly.\n", headers: headers, request: closing, context: context)
        }
        guard request.method == .GET || request.method == .HEAD else {
            headers.add(name: "Allow", value: "GET, HEAD")
            return send(.methodNotAllowed, text: "Only GET and HEAD are answered here.\n", headers: headers, request: request, context: context)
        }
        if path == WebRemoteServer.webSocketPath, !WebOrigin.allows(request.headers) {
            return send(
                .forbidden, text: "The web remote's WebSocket takes connections from its own page only.\n",
                headers: headers, request: request, context: context)
        }
        if path == WebRemoteServer.webSocketPath {
            headers.add(name: "Upgrade", value: "websocket")
            headers.add(name: "Connection", value: "Upgrade")
            return send(
                .upgradeRequired, text: "This address is the web remote's WebSocket: connect with a WebSocket client.\n",
                headers: headers, request: request, context: context)
        }
        if path.hasPrefix(DeckDownload.prefix) {
            let token = String(path.dropFirst(DeckDownload.prefix.count))
            guard let offer = download?.file(token: token) else {
                return send(
                    .forbidden, text: "Downloading the slides isn't allowed right now (or this link is from before it was revoked).\n",
                    headers: headers, request: request, context: context)
            }
            return sendFile(offer, headers: headers, request: request, context: context)
        }
        if path.hasPrefix(PageImageAddress.prefix) {
            return sendPageImage(request, headers: headers, context: context)
        }
        if assets.files.isEmpty && (path == "/" || path == "/index.html") {
            return send(
                .serviceUnavailable, text: "The web remote's files are missing on this appliance (looked in \(assets.source)). Reinstall the lectern package.\n",
                headers: headers, request: request, context: context)
        }
        guard let file = assets.files[path == "/" ? "/index.html" : path == "/wall" ? "/wall.html" : path] else {
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

    /// A viewer's slide (§24.2): 403 for a stranger, 404 when nothing of it is shown, 304
    /// when the device has it already (`If-None-Match`), else the image with its ETag.
    private func sendPageImage(_ request: HTTPRequestHead, headers: HTTPHeaders, context: ChannelHandlerContext) {
        guard let pageImages, let r = PageImageAddress.parse(request.uri) else {
            return send(.notFound, text: "Not found.\n", headers: headers, request: request, context: context)
        }
        let loop = context.eventLoop
        // Answered on the loop, whichever thread the image comes from.
        let here = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        pageImages.fetch(r) { answer in
            loop.execute {
                here.value.handler.answerPageImage(answer, request: request, headers: headers, context: here.value.context)
            }
        }
    }

    private func answerPageImage(_ answer: PageImages.Answer, request: HTTPRequestHead, headers: HTTPHeaders, context: ChannelHandlerContext) {
        guard !removed else { return }
        var h = headers
        switch answer {
        case .forbidden(let why): send(.forbidden, text: why, headers: h, request: request, context: context)
        case .notFound(let why): send(.notFound, text: why, headers: h, request: request, context: context)
        case .failed(let why): send(.internalServerError, text: why + "\n", headers: h, request: request, context: context)
        case .busy:
            h.add(name: "Retry-After", value: "1")
            send(.serviceUnavailable, text: "Rendering many slides at once — try again in a moment.\n", headers: h, request: request, context: context)
        case .image(let image):
            h.add(name: "ETag", value: image.etag)
            // The device keeps it and asks again with If-None-Match (a turn back costs a 304).
            h.add(name: "Cache-Control", value: "private, no-cache")
            if request.headers["If-None-Match"].contains(where: { $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == image.etag } }) {
                return send(.notModified, body: nil, contentType: nil, headers: h, request: request, context: context)
            }
            send(.ok, body: image.bytes, contentType: image.contentType, headers: h, request: request, context: context)
        }
    }

    /// The deck, streamed from its file a piece at a time (`ChunkGate.pieceSize`), the same
    /// over TLS and plain: the next piece is read only once the one before is written out
    /// and the gate has a place for it, so a download holds one piece however slowly its
    /// peer reads, and all downloads together at most the gate's places.
    private func sendFile(_ offer: DeckDownload.Offer, headers: HTTPHeaders, request: HTTPRequestHead, context: ChannelHandlerContext) {
        guard let file = try? FileChunks(path: offer.path) else {
            return send(.notFound, text: "The deck is no longer on the appliance.\n", headers: headers, request: request, context: context)
        }
        var h = headers
        let ascii = String(offer.name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
        h.add(name: "Content-Type", value: "application/pdf")
        h.add(name: "Content-Disposition", value: "attachment; filename=\"\(ascii.hasSuffix(".pdf") ? ascii : ascii + ".pdf")\"")
        h.add(name: "Cache-Control", value: "no-store")
        h.add(name: "Content-Length", value: String(file.size))
        let keepAlive = request.isKeepAlive
        h.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: .ok, headers: h))), promise: nil)
        let stream = Stream(file: file, id: chunks.newID(), keepAlive: keepAlive)
        streamNext(stream, offset: request.method == .HEAD ? file.size : 0, context: context)
    }

    /// One download in progress.
    private struct Stream {
        let file: FileChunks
        let id: Int
        let keepAlive: Bool
    }
    /// The download waiting for a place in the gate (left when the connection goes).
    private var waitingStream: Int?

    private func streamNext(_ stream: Stream, offset: Int, context: ChannelHandlerContext) {
        guard !removed, context.channel.isActive else { return }
        guard offset < stream.file.size else {
            let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            let here = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            done.whenComplete { _ in here.value.handler.responseDone(here.value.context) }
            if !stream.keepAlive {
                let channel = context.channel
                done.whenComplete { _ in channel.close(promise: nil) }
            }
            return
        }
        let here = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        waitingStream = stream.id
        chunks.ask(stream.id) {
            loop.execute { here.value.handler.readPiece(stream, offset: offset, context: here.value.context) }
        }
    }

    /// Holding a place: reads the piece, writes it, gives the place back once it is out.
    private func readPiece(_ stream: Stream, offset: Int, context: ChannelHandlerContext) {
        waitingStream = nil
        guard !removed, context.channel.isActive else { return chunks.release() }
        let n = min(ChunkGate.pieceSize, stream.file.size - offset)
        let here = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let chunks = self.chunks
        stream.file.read(offset: offset, count: n, appendingTo: context.channel.allocator.buffer(capacity: n), on: context.eventLoop).whenComplete { read in
            let (handler, context) = here.value
            guard case .success(let piece) = read, !handler.removed else {
                chunks.release()
                return context.close(promise: nil)
            }
            context.writeAndFlush(handler.wrapOutboundOut(.body(.byteBuffer(piece)))).whenComplete { written in
                chunks.release()
                let (handler, context) = here.value
                guard case .success = written else { return context.close(promise: nil) }
                handler.policy?.responseProgressed(now: handler.clock())
                handler.reschedule(context)
                handler.streamNext(stream, offset: offset + n, context: context)
            }
        }
    }

    private func send(_ status: HTTPResponseStatus, text: String, headers: HTTPHeaders, request: HTTPRequestHead, context: ChannelHandlerContext) {
        var h = headers
        h.add(name: "Cache-Control", value: "no-store")
        send(status, body: Array(text.utf8), contentType: "text/plain; charset=utf-8", headers: h, request: request, context: context)
    }

    private func send(
        _ status: HTTPResponseStatus, body: [UInt8]?, contentType: String?, headers: HTTPHeaders,
        request: HTTPRequestHead, context: ChannelHandlerContext
    ) {
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
        let here = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        done.whenComplete { _ in here.value.handler.responseDone(here.value.context) }
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A refused upgrade (another site's page) goes on as a plain request: answered 403.
        if let e = error as? NIOWebSocketUpgradeError, e == .unsupportedWebSocketTarget { return }
        context.close(promise: nil)
    }
}
