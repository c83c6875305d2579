import NIOSSL
import Synchronization

/// The certificate both ports present now (`TLSIdentity`) with its server context, and the
/// room's name for the landing page (§28): swapped whole by a reload (SIGHUP, `systemctl
/// reload`). A connection takes the context when its ClientHello arrives and keeps it for
/// its life, so a renewed certificate reaches new connections only: nobody is dropped.
final class TLSServing: Sendable {
    struct Current: Sendable {
        let identity: TLSIdentity
        let context: NIOSSLContext
        let room: String

        /// Browsers warn about this certificate: the address on the wall opens the landing
        /// page first (§28). An admin's certificate is taken to be one they trust.
        var warns: Bool { identity.selfSigned }
    }

    private let state: Mutex<Current>

    init(identity: TLSIdentity, room: String) throws {
        state = Mutex(Current(identity: identity, context: try identity.serverContext(), room: room))
    }

    var current: Current { state.withLock { $0 } }

    /// From now on, new connections get `identity`. Throws (and keeps the one in force) when
    /// no server context can be made of it.
    func replace(identity: TLSIdentity, room: String) throws {
        let next = Current(identity: identity, context: try identity.serverContext(), room: room)
        state.withLock { $0 = next }
    }
}
