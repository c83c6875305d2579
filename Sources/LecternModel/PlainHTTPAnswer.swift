/// What the web remote's port answers a plain (unencrypted) HTTP request when TLS is on
/// (docs/protocol.md §25.5): browsers' page loads go to the same address on https://;
/// with `allow_plain`, the WebSocket at `/ws` is still served in plain (native clients).
/// With a certificate browsers don't know (the appliance's own), the address on the wall
/// (`GET /`) gets the landing page instead (§28): what the browser's warning means, the
/// fingerprint, and the way on to https://. Pure: the head's bytes in, the answer out
/// (`PlainWebGate` is the shell).
public enum PlainHTTPAnswer: Equatable, Sendable {
    /// Serve the request in plain, as before.
    case pass
    /// `301 Moved Permanently` to this https:// address.
    case redirect(String)
    /// The landing page (`LandingPage`), going on to this https:// address (§28).
    case landing(String)
    /// A refusal: the status and a line of text for the person or program.
    case refuse(status: Int, text: String)

    /// The most bytes of request head looked at; a longer head is refused (431).
    public static let maxHead = 8192

    /// Who this appliance is, for where a redirect may point: the address (and port) the
    /// connection arrived on, and the names and addresses it goes by.
    public struct Appliance: Equatable, Sendable {
        /// `host:port` as in a URL (`[v6]:port` for IPv6): where the connection arrived.
        public var arrivedOn: String
        /// Host names and addresses (lower-case, no port) that are this appliance.
        public var names: Set<String>
        public init(arrivedOn: String, names: Set<String>) {
            self.arrivedOn = arrivedOn
            self.names = Set(names.map { $0.lowercased() })
        }
    }

    /// `head`: the request line and headers, up to the empty line. With `appliance`, a
    /// `Host` that names another machine is not trusted (an open redirect): the answer
    /// points to the address the connection arrived on instead.
    /// `landing`: the room's certificate is one browsers warn about, so `GET /` (and
    /// `HEAD /`) gets the landing page rather than the redirect.
    public static func answer(head: [UInt8], allowPlain: Bool, appliance: Appliance? = nil, landing warns: Bool = false) -> PlainHTTPAnswer {
        guard head.count <= maxHead else { return .refuse(status: 431, text: "Request header too large.") }
        let text = String(decoding: head, as: UTF8.self)
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let request = lines.first.map { $0.split(separator: " ", omittingEmptySubsequences: false) } ?? []
        guard request.count == 3, request[2].hasPrefix("HTTP/1.") else { return .refuse(status: 400, text: "Not an HTTP/1.x request.") }
        let method = String(request[0]), target = String(request[1])
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        let webSocket = path == "/ws"
        if allowPlain && (webSocket || (method != "GET" && method != "HEAD")) { return .pass }
        var hostHeader: String?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == "host" {
                hostHeader = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
                break
            }
        }
        guard let given = hostHeader, isSafeHost(given), target.hasPrefix("/"), target.count <= 2048,
            target.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else {
            return .refuse(status: 400, text: "This appliance takes https:// only.")
        }
        let host = appliance.map { a in a.names.contains(hostPart(given).lowercased()) ? given : a.arrivedOn } ?? given
        if webSocket {
            return .refuse(status: 403, text: "This appliance takes encrypted connections only: use wss://\(host)/ws (TLS).")
        }
        guard method == "GET" || method == "HEAD" else {
            return .refuse(status: 403, text: "This appliance takes https:// only: https://\(host)\(target)")
        }
        if warns && path == "/" { return .landing("https://\(host)/") }
        return .redirect("https://\(host)\(target)")
    }

    /// The host of a `Host` header, without its port or an IPv6 address's brackets.
    static func hostPart(_ h: String) -> String {
        if h.hasPrefix("[") {
            guard let close = h.firstIndex(of: "]") else { return h }
            return String(h[h.index(after: h.startIndex)..<close])
        }
        return h.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? h
    }

    /// A Host header fit for a Location header: a name or address and a port, nothing else.
    static func isSafeHost(_ h: String) -> Bool {
        !h.isEmpty && h.count <= 255
            && h.unicodeScalars.allSatisfy { c in
                ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "." || c == "-" || c == ":" || c == "[" || c == "]"
            }
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
