import NIOCore
import NIOHTTP1

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
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
        ),
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
            return send(
                .upgradeRequired, text: "This address is the web remote's WebSocket: connect with a WebSocket client.\n",
                headers: headers, request: request, context: context)
        }
        if assets.files.isEmpty && (path == "/" || path == "/index.html") {
            return send(
                .serviceUnavailable, text: "The web remote's files are missing on this appliance (looked in \(assets.source)). Reinstall the lectern package.\n",
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
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
