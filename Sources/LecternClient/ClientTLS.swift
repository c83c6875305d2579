import Foundation
import LecternProtocol
import Synchronization

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
final class TLSWatch: Sendable {
    private struct Seen {
        var fingerprint: CertificateFingerprint?
        var accepted = false
        var failure: Error?
    }
    private let state = Mutex(Seen())

    func saw(_ f: CertificateFingerprint, accepted ok: Bool) {
        state.withLock {
            $0.fingerprint = f
            $0.accepted = ok
        }
    }

    func failed(_ e: Error) {
        state.withLock { if $0.failure == nil { $0.failure = e } }
    }

    var outcome: (seen: CertificateFingerprint?, accepted: Bool, failure: Error?) {
        state.withLock { ($0.fingerprint, $0.accepted, $0.failure) }
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
