import Foundation
import LecternProtocol

/// The rooms this user has connected to over TLS and the certificate each presented
/// (pinned on first use, as ssh's known_hosts): one line per room, `HOST:PORT SHA256-HEX`.
/// The file: `$LECTERN_KNOWN_ROOMS`, else `$XDG_CONFIG_HOME/lectern/known-rooms`, else
/// `~/.config/lectern/known-rooms`.
struct KnownRooms {
    let path: String
    private(set) var entries: [(room: String, fingerprint: CertificateFingerprint)] = []

    static func defaultPath(environment env: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let p = env["LECTERN_KNOWN_ROOMS"], !p.isEmpty { return p }
        let base = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((env["HOME"] ?? NSHomeDirectory()) + "/.config")
        return base + "/lectern/known-rooms"
    }

    /// The room's key: "host:port" ("[::1]:7420" for an IPv6 address).
    static func key(host: String, port: Int) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    init(path: String) {
        self.path = path
        if let text = try? String(contentsOfFile: path, encoding: .utf8) { entries = Self.parse(text) }
    }

    /// Lines that aren't `ROOM HEX` (comments, blanks, damage) are skipped.
    static func parse(_ text: String) -> [(room: String, fingerprint: CertificateFingerprint)] {
        text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, !line.hasPrefix("#"), let bytes = fromHex(String(parts[1])), let f = CertificateFingerprint(bytes: bytes) else { return nil }
            return (String(parts[0]), f)
        }
    }

    func fingerprint(for room: String) -> CertificateFingerprint? { entries.last { $0.room == room }?.fingerprint }

    /// Remembers `f` for `room` (replacing what was there) and writes the file.
    mutating func remember(_ f: CertificateFingerprint, for room: String) throws {
        entries.removeAll { $0.room == room }
        entries.append((room, f))
        let text =
            "# Rooms lectern has connected to and their TLS certificates' SHA-256 (docs/protocol.md §25.5).\n"
            + entries.map { "\($0.room) \($0.fingerprint.hex)\n" }.joined()
        let dir = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    static func fromHex(_ s: String) -> [UInt8]? {
        guard s.count == 64 else { return nil }
        var out: [UInt8] = []
        var it = s.makeIterator()
        while let a = it.next(), let b = it.next() {
            guard let v = UInt8(String([a, b]), radix: 16) else { return nil }
            out.append(v)
        }
        return out
    }
}
