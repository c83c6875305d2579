import Foundation
import NIOConcurrencyHelpers

/// What the web server may hand out at `/download/<token>` (§24.5): the deck on the wall
/// while the holder or moderator allows it, behind a random token only the room's devices
/// receive (in their state). Revoked: the token is gone and the address answers 403.
/// Set by the room's shell after every event; read by the HTTP handlers on any loop.
final class DeckDownload: Sendable {
    struct Offer: Equatable, Sendable {
        let token: String
        let path: String
        let name: String
    }
    private let offer = NIOLockedValueBox<Offer?>(nil)

    func set(_ o: Offer?) { offer.withLockedValue { $0 = o } }

    /// The file for this token, if it is the one offered now (compared in constant time).
    func file(token: String) -> Offer? {
        guard let o = offer.withLockedValue({ $0 }) else { return nil }
        let a = Array(o.token.utf8), b = Array(token.utf8)
        guard a.count == b.count else { return nil }
        var diff: UInt8 = 0
        for i in 0..<a.count { diff |= a[i] ^ b[i] }
        return diff == 0 ? o : nil
    }

    static let prefix = "/download/"
}
