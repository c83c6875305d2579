import Foundation
import NIOHTTP1

/// Which pages may open the web remote's WebSocket: its own page (the `Origin` header's
/// host and port equal to the request's `Host`), and clients that send no `Origin` at all
/// (they are not browsers, so no other site's page is driving them). Anything else, such
/// as a page of another site that someone in the room has open, gets no upgrade (403).
enum WebOrigin {
    static func allows(_ headers: HTTPHeaders) -> Bool {
        let origins = headers["Origin"]
        guard !origins.isEmpty else { return true }
        guard origins.count == 1, let host = headers["Host"].first else { return false }
        return allows(origin: origins[0], host: host)
    }

    /// `origin` ("http://host:port", "null", …) against the `Host` header ("host:port").
    static func allows(origin: String, host: String) -> Bool {
        let o = origin.trimmingCharacters(in: .whitespaces).lowercased()
        let scheme: String, defaultPort: String
        if o.hasPrefix("http://") {
            (scheme, defaultPort) = ("http://", "80")
        } else if o.hasPrefix("https://") {
            (scheme, defaultPort) = ("https://", "443")
        } else {
            return false   // "null" (a sandboxed or file: page) and anything else
        }
        let authority = String(o.dropFirst(scheme.count))
        guard !authority.isEmpty, !authority.contains("/"), !authority.contains("@") else { return false }
        return normalized(authority, defaultPort) == normalized(host.trimmingCharacters(in: .whitespaces).lowercased(), defaultPort)
    }

    /// "host:port" with the scheme's port made explicit ("[::1]" and "[::1]:8080" kept whole).
    private static func normalized(_ authority: String, _ defaultPort: String) -> String {
        if authority.hasPrefix("[") {
            return authority.hasSuffix("]") ? authority + ":" + defaultPort : authority
        }
        return authority.contains(":") ? authority : authority + ":" + defaultPort
    }
}
