import Foundation
import LecternModel
import LecternSystem
import LecternProtocol

/// A viewer as a browser is one (§24): the protocol over a WebSocket on the web remote's
/// port, and the slide over HTTP (a keep-alive connection of its own, `If-None-Match` with
/// the ETag it has). Just enough for the bench: registers, answers pings (protocol and
/// WebSocket), notes when state frames arrive and the live page's image address.
public final class WebSocketViewer {
    public let socket: RawSocket
    private let port: Int
    private var decoder = FrameDecoder()
    private var wsBuffer: [UInt8] = []
    public var statesSeen = 0
    public var lastStateAt = 0.0
    public private(set) var pageImage: String?
    public private(set) var token: ResumeToken?
    private var http: RawSocket?
    private let tls: CertificateFingerprint?
    private var etags: [String: String] = [:]

    /// Connects, upgrades and registers as a viewer with the passcode's derived key; over
    /// TLS pinned to `tls` (as a browser on https://), plain without.
    public init(port: Int, name: String, key: [UInt8], tls: CertificateFingerprint? = nil) throws {
        self.port = port
        self.tls = tls
        socket = try RawSocket(port: port, tls: tls)
        var nonce = [UInt8](repeating: 0, count: 16)
        for i in 0..<16 { nonce[i] = UInt8.random(in: 0...255) }
        let request =
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: \(tls == nil ? "http" : "https")://127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(Data(nonce).base64EncodedString())\r\nSec-WebSocket-Version: 13\r\n\r\n"
        _ = socket.send(Array(request.utf8))
        var head: [UInt8] = []
        let deadline = MonotonicClock.now() + 15
        while Self.find([13, 10, 13, 10], in: head) == nil {
            guard MonotonicClock.now() < deadline, let b = socket.receive(timeout: 5), !b.isEmpty else { throw Fixtures.ToolError(description: "no WebSocket upgrade") }
            head += b
        }
        let end = Self.find([13, 10, 13, 10], in: head)! + 4
        guard String(decoding: head[..<end], as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            throw Fixtures.ToolError(description: "upgrade refused: \(String(decoding: head[..<min(end, 80)], as: UTF8.self))")
        }
        wsBuffer = Array(head[end...])
        var hello: Hello?
        while hello == nil { for f in try frames(timeout: 15) { if case .hello(let h) = try Message.decode(f, sentBy: .server) { hello = h } } }
        let proof = RegisterProof.compute(key: key, challenge: hello!.challenge, role: .viewer, name: name, resumeToken: nil)
        send(Message.register(RegisterRequest(role: .viewer, proof: proof, resumeToken: nil, name: name)).encode(tag: 1, deviceID: 0xFF))
        while token == nil {
            for f in try frames(timeout: 15) {
                let m = try Message.decode(f, sentBy: .server)
                if f.header.tag == 1 {
                    guard case .registerOK(let ok) = m else { throw Fixtures.ToolError(description: "register failed: \(m.error?.message ?? "\(m)")") }
                    token = ok.resumeToken
                } else if case .state(let s) = m {
                    pageImage = s.audience?.pageImage
                }
            }
        }
    }

    /// The device's page-image key (§24.2).
    public var imageKey: String { token.map { PageImageAddress.key(for: $0) } ?? "" }

    /// Sends protocol bytes as one masked binary WebSocket message.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool { socket.send(Self.frame(opcode: 0x2, bytes)) }

    static func frame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x80 | opcode]
        let n = payload.count
        if n < 126 {
            out.append(0x80 | UInt8(n))
        } else if n < 65536 {
            out += [0x80 | 126, UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            out.append(0x80 | 127)
            for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8((UInt64(n) >> UInt64(s)) & 0xFF)) }
        }
        let mask: [UInt8] = [UInt8.random(in: 0...255), UInt8.random(in: 0...255), UInt8.random(in: 0...255), UInt8.random(in: 0...255)]
        out += mask
        for (i, b) in payload.enumerated() { out.append(b ^ mask[i & 3]) }
        return out
    }

    /// Protocol bytes out of the WebSocket frames received so far (answering WebSocket pings).
    private func unwrap() -> [UInt8] {
        var out: [UInt8] = []
        while wsBuffer.count >= 2 {
            let opcode = wsBuffer[0] & 0x0F
            var n = Int(wsBuffer[1] & 0x7F), at = 2
            if n == 126 {
                guard wsBuffer.count >= 4 else { break }
                n = Int(wsBuffer[2]) << 8 | Int(wsBuffer[3]); at = 4
            } else if n == 127 {
                guard wsBuffer.count >= 10 else { break }
                n = (2..<10).reduce(0) { $0 << 8 | Int(wsBuffer[$1]) }; at = 10
            }
            guard wsBuffer.count >= at + n else { break }
            let payload = Array(wsBuffer[at..<(at + n)])
            wsBuffer.removeFirst(at + n)
            switch opcode {
            case 0x0, 0x2: out += payload
            case 0x9: _ = socket.send(Self.frame(opcode: 0xA, payload))
            default: break
            }
        }
        return out
    }

    /// The frames received so far, else waits up to `timeout` for more.
    private func frames(timeout: Double) throws -> [WireFrame] {
        decoder.feed(unwrap())
        var out: [WireFrame] = []
        while let f = try decoder.next() { out.append(f) }
        if !out.isEmpty { return out }
        guard let bytes = socket.receive(timeout: timeout) else { throw Fixtures.ToolError(description: "no answer in \(timeout) s") }
        guard !bytes.isEmpty else { throw Fixtures.ToolError(description: "the service closed the connection") }
        wsBuffer += bytes
        decoder.feed(unwrap())
        while let f = try decoder.next() { out.append(f) }
        return out
    }

    /// Reads what has arrived (waiting up to `timeout` for something): notes states (and
    /// the page image's address in them), answers protocol pings.
    public func pump(timeout: Double) {
        var wait = timeout
        while let bytes = socket.receive(timeout: wait), !bytes.isEmpty {
            wait = 0
            let now = MonotonicClock.now()
            wsBuffer += bytes
            decoder.feed(unwrap())
            while let f = try? decoder.next() {
                if f.header.command == Command.state.rawValue {
                    statesSeen += 1
                    lastStateAt = now
                    if case .state(let s)? = try? Message.decode(f, sentBy: .server) { pageImage = s.audience?.pageImage }
                }
                if f.header.command == Command.ping.rawValue {
                    var pong = f.header
                    pong.command = Command.pong.rawValue
                    pong.deviceID = 0xFF
                    send(pong.encode() + f.body)
                }
            }
        }
    }

    public struct Fetch {
        public let status: Int
        /// Bytes received: the response's head and body.
        public let bytes: Int
        public let contentType: String?
    }

    /// GETs the live page's image at `width` over this viewer's keep-alive HTTP connection,
    /// with the ETag it has for that address.
    public func fetchImage(width: Int) throws -> Fetch {
        guard let path = pageImage else { throw Fixtures.ToolError(description: "no page image in the state") }
        let url = "\(path)/\(width)?k=\(imageKey)"
        if http == nil { http = try RawSocket(port: port, tls: tls) }
        var request = "GET \(url) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if let e = etags[url] { request += "If-None-Match: \(e)\r\n" }
        request += "\r\n"
        guard http!.send(Array(request.utf8)) else {
            http = nil
            return try fetchImage(width: width)
        }
        var buffer: [UInt8] = []
        var head: (end: Int, status: Int, fields: [String: String])?
        let deadline = MonotonicClock.now() + 30
        while true {
            guard MonotonicClock.now() < deadline, let b = http!.receive(timeout: 10) else { throw Fixtures.ToolError(description: "no image in time") }
            if b.isEmpty {
                http = nil
                throw Fixtures.ToolError(description: "the image's connection closed")
            }
            buffer += b
            if head == nil, let h = Self.find([13, 10, 13, 10], in: buffer) {
                let lines = String(decoding: buffer[..<h], as: UTF8.self).components(separatedBy: "\r\n")
                var fields: [String: String] = [:]
                for l in lines.dropFirst() {
                    guard let c = l.firstIndex(of: ":") else { continue }
                    fields[l[..<c].lowercased()] = l[l.index(after: c)...].trimmingCharacters(in: .whitespaces)
                }
                head = (h, Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0, fields)
            }
            guard let (h, status, fields) = head else { continue }
            let length = status == 304 ? 0 : Int(fields["content-length"] ?? "0") ?? 0
            guard buffer.count >= h + 4 + length else { continue }
            if let e = fields["etag"], status == 200 { etags[url] = e }
            if fields["connection"] == "close" { http = nil }
            return Fetch(status: status, bytes: h + 4 + length, contentType: fields["content-type"])
        }
    }

    public func close() {
        socket.close()
        http?.close()
    }

    static func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        for i in 0...(hay.count - needle.count) where Array(hay[i..<(i + needle.count)]) == needle { return i }
        return nil
    }
}
