import Foundation
import LecternProtocol

/// How a client checks the appliance's certificate: by its SHA-256 fingerprint, which
/// `accept` takes or refuses during the handshake (before anything of the protocol is
/// sent). The CLI's rule is in its KnownRooms: a pinned fingerprint, `--fingerprint`, or
/// the first use.
public struct ClientTLS: Sendable {
    public var accept: @Sendable (CertificateFingerprint) -> Bool
    public init(accept: @escaping @Sendable (CertificateFingerprint) -> Bool) { self.accept = accept }

    /// Only a certificate with exactly this fingerprint.
    public static func pinned(_ f: CertificateFingerprint) -> ClientTLS { ClientTLS { $0 == f } }
}

/// What the handshake showed, for the error after it failed.
final class TLSWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: CertificateFingerprint?
    private var accepted = false
    private var failure: Error?

    func saw(_ f: CertificateFingerprint, accepted ok: Bool) {
        lock.lock(); seen = f; accepted = ok; lock.unlock()
    }

    func failed(_ e: Error) {
        lock.lock(); if failure == nil { failure = e }; lock.unlock()
    }

    var outcome: (seen: CertificateFingerprint?, accepted: Bool, failure: Error?) {
        lock.lock(); defer { lock.unlock() }
        return (seen, accepted, failure)
    }
}

enum TLSIdentityName {
    /// An IPv4 or IPv6 address (not a name SNI may carry).
    static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return inet_pton(AF_INET, bare, &v4) == 1 || inet_pton(AF_INET6, bare, &v6) == 1
    }
}
