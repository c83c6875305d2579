/// Where a listener binds, written `HOST:PORT` (`127.0.0.1:9420`, `[::1]:9420`,
/// `metrics.example:9420`): the config's `metrics_address`.
public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    /// 0: any free port (tests).
    public var port: Int

    public init(host: String, port: Int) { self.host = host; self.port = port }

    /// nil for anything but a host (letters, digits, `.`, `:`, `-`; an IPv6 address in
    /// brackets) and a port 0–65535.
    public init?(parsing address: String) {
        guard let colon = address.lastIndex(of: ":") else { return nil }
        var host = String(address[..<colon])
        guard let port = Int(address[address.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == ":" || $0 == "-" }) else { return nil }
        self.init(host: host, port: port)
    }

    /// As the config writes it (an IPv6 host in brackets).
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
