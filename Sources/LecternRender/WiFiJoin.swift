/// The standard Wi-Fi QR payload phones join a network from
/// (`WIFI:T:WPA;S:ssid;P:passphrase;;`, special characters escaped with a backslash).
public struct WiFiJoin: Equatable, Sendable {
    public var ssid: String
    /// Empty: an open network (`T:nopass`).
    public var password: String

    public init(ssid: String, password: String) {
        self.ssid = ssid
        self.password = password
    }

    public var payload: String {
        password.isEmpty
            ? "WIFI:T:nopass;S:\(Self.escape(ssid));;"
            : "WIFI:T:WPA;S:\(Self.escape(ssid));P:\(Self.escape(password));;"
    }

    /// `\`, `;`, `,`, `:` and `"` are written with a backslash before them.
    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            if "\\;,:\"".contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
