import Foundation
import LecternModel
import NIOCore

/// On the web remote's port with TLS on, in front of a plain connection's HTTP handlers:
/// reads the request head and answers as `PlainHTTPAnswer` says (a redirect to https://
/// for browsers, the landing page at `/` while the certificate is one browsers warn about,
/// a refusal of plain WebSockets unless `allow_plain`), or steps aside. A
/// redirect goes to the `Host` the browser asked for only when that is one of this
/// appliance's names or addresses (`names`, the address the connection arrived on), else
/// to the address the connection arrived on: never to another machine.
final class PlainWebGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let allowPlain: Bool
    /// The appliance's host names and addresses (lower-case), besides the arrival address.
    let names: Set<String>
    /// The certificate in force and the room's name, for the landing page (§28).
    let tls: TLSServing?
    private var pending: ByteBuffer?
    private var done = false

    init(allowPlain: Bool, names: Set<String> = [], tls: TLSServing? = nil) {
        self.allowPlain = allowPlain
        self.names = names
        self.tls = tls
    }

    /// Where the connection arrived (`host:port` for a URL) and the names that are this appliance.
    static func appliance(local: SocketAddress?, names: Set<String>) -> PlainHTTPAnswer.Appliance? {
        guard let local, let ip = local.ipAddress, let port = local.port else { return nil }
        var all = names
        all.insert(ip.lowercased())
        let loopback = ip.hasPrefix("127.") || ip == "::1"
        if loopback { all.insert("localhost") }
        return PlainHTTPAnswer.Appliance(arrivedOn: ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)", names: all)
    }

    /// This machine's names and addresses now (the listener asks once, when it starts).
    static func currentNames() -> Set<String> {
        var names = Set(NetworkAddresses.current().map { $0.lowercased() })
        var buf = [CChar](repeating: 0, count: 256)
        let host = gethostname(&buf, 255) == 0 ? String(cString: buf).lowercased() : ""
        if !host.isEmpty, host != "localhost" {
            names.insert(host)
            if !host.contains(".") { names.insert(host + ".local") }
        }
        return names
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        var buf = unwrapInboundIn(data)
        if pending == nil { pending = buf } else { pending!.writeBuffer(&buf) }
        let bytes = Array(pending!.readableBytesView)
        let end = Self.endOfHead(bytes)
        guard end != nil || bytes.count > PlainHTTPAnswer.maxHead else { return }
        done = true
        let head = end.map { Array(bytes[..<$0]) } ?? bytes
        let appliance = Self.appliance(local: context.channel.localAddress, names: names)
        let current = tls?.current
        switch PlainHTTPAnswer.answer(head: head, allowPlain: allowPlain, appliance: appliance, landing: current?.warns == true) {
        case .pass:
            let all = pending!
            pending = nil
            context.fireChannelRead(wrapInboundOut(all))
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        case .redirect(let location):
            respond(context, status: "301 Moved Permanently", text: "This appliance takes https:// only: \(location)\n", location: location)
        case .landing(let https):
            guard let current else { return respond(context, status: "301 Moved Permanently", text: https + "\n", location: https) }
            let page = LandingPage(room: current.room, fingerprint: current.identity.fingerprint.short, https: https)
            let isHead = head.starts(with: Array("HEAD ".utf8))
            respond(context, status: "200 OK", body: Array(page.html.utf8), headers: LandingPage.headers, sendBody: !isHead)
        case .refuse(let status, let text):
            let reason = [400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large"][status] ?? "Forbidden"
            respond(context, status: "\(status) \(reason)", text: text + "\n", location: nil)
        }
    }

    static func endOfHead(_ b: [UInt8]) -> Int? {
        guard b.count >= 4 else { return nil }
        for i in 0...(b.count - 4) where b[i] == 13 && b[i + 1] == 10 && b[i + 2] == 13 && b[i + 3] == 10 { return i + 2 }
        return nil
    }

    private func respond(_ context: ChannelHandlerContext, status: String, text: String, location: String?) {
        var headers = [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")]
        if let location { headers.append(("Location", location)) }
        respond(context, status: status, body: Array(text.utf8), headers: headers, sendBody: true)
    }

    private func respond(_ context: ChannelHandlerContext, status: String, body: [UInt8], headers: [(String, String)], sendBody: Bool) {
        var head = "HTTP/1.1 \(status)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        var out = context.channel.allocator.buffer(capacity: head.utf8.count + body.count)
        out.writeString(head)
        if sendBody { out.writeBytes(body) }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(out)).whenComplete { _ in channel.close(promise: nil) }
        context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
    }
}
