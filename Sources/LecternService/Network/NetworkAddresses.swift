import NIOCore

/// The addresses a device in the room can reach this appliance at, for the idle screen.
public enum NetworkAddresses {
    /// Non-loopback IPv4 addresses of the machine's interfaces (IPv6 link-local left out).
    public static func current() -> [String] {
        guard let devices = try? System.enumerateDevices() else { return [] }
        var out: [String] = []
        for d in devices {
            guard let a = d.address, case .v4 = a, let ip = a.ipAddress,
                !ip.hasPrefix("127.")
            else { continue }
            if !out.contains(ip) { out.append(ip) }
        }
        return out
    }
}
