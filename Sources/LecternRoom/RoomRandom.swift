import LecternProtocol

/// Where the room's core draws its random values (resume tokens, the download token, the
/// meeting id, the state's epoch): a generator the shell passes in, shared by the core and
/// its floor. The service passes the system's cryptographic source (the tokens are
/// secrets, so it is never a seeded one); the core's tests pass a seeded generator and
/// get the same tokens every run.
final class RoomRandom {
    private var generator: any RandomNumberGenerator

    init(_ generator: any RandomNumberGenerator) { self.generator = generator }

    func bytes(_ n: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(n)
        while out.count < n {
            let word = generator.next()
            for i in 0..<min(8, n - out.count) { out.append(UInt8(truncatingIfNeeded: word >> (8 * UInt64(i)))) }
        }
        return out
    }

    /// `n` random bytes as lower-case hex.
    func hex(_ n: Int) -> String { hexString(bytes(n)) }

    func token() -> ResumeToken { ResumeToken(bytes: bytes(ProtocolLimits.resumeTokenLength))! }

    func word() -> UInt64 { generator.next() }
}
