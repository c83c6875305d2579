import LecternProtocol

/// Where the room's core draws its random values (resume tokens, the download token, the
/// meeting id, the state's epoch, the code on the wall): a value the core's state owns.
/// The service uses the system's cryptographic source (`.system`: the tokens are secrets,
/// so it is never a seeded one); the core's tests use `.seeded`, SplitMix64, and get the
/// same tokens every run, and two rooms fed the same events with the same seed are equal.
public struct RoomRandom: Equatable, Sendable {
    enum Source: Equatable, Sendable {
        case system
        /// SplitMix64's state.
        case seeded(UInt64)
    }

    private(set) var source: Source

    /// The system's cryptographic generator.
    public static var system: RoomRandom { RoomRandom(source: .system) }

    /// A reproducible sequence (tests): SplitMix64 from `seed`.
    public static func seeded(_ seed: UInt64) -> RoomRandom { RoomRandom(source: .seeded(seed)) }

    mutating func word() -> UInt64 {
        switch source {
        case .system:
            var g = SystemRandomNumberGenerator()
            return g.next()
        case .seeded(var state):
            state &+= 0x9E37_79B9_7F4A_7C15
            source = .seeded(state)
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    mutating func bytes(_ n: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(n)
        while out.count < n {
            let word = word()
            for i in 0..<min(8, n - out.count) { out.append(UInt8(truncatingIfNeeded: word >> (8 * UInt64(i)))) }
        }
        return out
    }

    /// `n` random bytes as lower-case hex.
    mutating func hex(_ n: Int) -> String { hexString(bytes(n)) }

    mutating func token() -> ResumeToken { ResumeToken(bytes: bytes(ProtocolLimits.resumeTokenLength))! }
}
