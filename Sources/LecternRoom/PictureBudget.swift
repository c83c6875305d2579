/// The room's budget for pictures being made (page previews, screenshots: docs/protocol.md
/// §13): counted in bytes **before** they are made. A picture of w × h pixels costs its
/// frame (w × h × 4) and at most as much again for its encoding; one is admitted only if
/// its cost fits in what is left of `capacityBytes` and fewer than `maxPictures` are being
/// made; else the asker is told to come back (`slowDown`, detail 1000 ms) and nothing is
/// rendered. A picture's bytes stay counted until its pieces have left for the client's
/// socket (`sent`, then `drained` once the connection reads again or half a second later),
/// so what waits in slow clients' output counts too. Pure.
public struct PictureBudget: Equatable, Sendable {
    public static let capacityBytes = 48 << 20
    public static let maxPictures = 8
    /// A sent picture's bytes are free this long after it is sent if its connection is
    /// still writable then (the write went out under its output budget); else once it is.
    public static let settleSeconds = 0.05
    /// What a refused asker is told to wait.
    public static let retryAfterSeconds = 1.0

    public let capacityBytes: Int
    public let maxPictures: Int
    public private(set) var bytes = 0
    public private(set) var pictures = 0

    public init(capacityBytes: Int = PictureBudget.capacityBytes, maxPictures: Int = PictureBudget.maxPictures) {
        self.capacityBytes = capacityBytes
        self.maxPictures = maxPictures
    }

    /// What a picture of `width` × `height` is counted for.
    public static func cost(width: Int, height: Int) -> Int { max(1, width) * max(1, height) * 4 * 2 }

    /// Admits a picture of `cost` bytes (true: counted now), or refuses it (false).
    public mutating func admit(cost: Int) -> Bool {
        guard pictures < maxPictures, bytes + cost <= capacityBytes else { return false }
        bytes += cost
        pictures += 1
        return true
    }

    /// A picture is made (or failed): it no longer counts as being made; its bytes stay
    /// counted while they wait to be sent (`sent`), else they are free again.
    public mutating func made(cost: Int, sent: Bool) {
        pictures = max(0, pictures - 1)
        if !sent { bytes = max(0, bytes - cost) }
    }

    /// Bytes of sent pictures left for the socket (the client reads, or it is gone).
    public mutating func drained(bytes b: Int) { bytes = max(0, bytes - b) }
}
