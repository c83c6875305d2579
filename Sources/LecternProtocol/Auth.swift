import Foundation
import Crypto
import _CryptoExtras

/// A passcode as the server keeps it: PBKDF2-HMAC-SHA256(passcode, salt, rounds) → 32
/// bytes. Written in the config file as
///
///     pbkdf2-sha256$<rounds>$<salt, base64>$<key, base64>
///
/// (standard base64 with padding, RFC 4648 §4). The passcode itself is never stored
/// once derived and never crosses the wire.
public struct PasscodeHash: Equatable, Sendable {
    public static let prefix = "pbkdf2-sha256"
    /// Default PBKDF2 round count: the minimum swift-crypto's checked API accepts (210,000,
    /// OWASP's 2021 figure) and a few hundred ms of WebCrypto on a phone.
    public static let defaultRounds: UInt32 = 210_000
    /// Round counts `parse` accepts.
    public static let allowedRounds: ClosedRange<UInt32> = 10_000...10_000_000
    public static let defaultSaltLength = 16
    public static let allowedSaltLengths: ClosedRange<Int> = 8...64
    public static let keyLength = 32

    public let rounds: UInt32
    public let salt: [UInt8]
    /// The derived key, 32 bytes.
    public let key: [UInt8]

    public init(rounds: UInt32, salt: [UInt8], key: [UInt8]) {
        self.rounds = rounds
        self.salt = salt
        self.key = key
    }

    /// The KDF parameters a hello announces for this passcode.
    public var parameters: KDFParameters { KDFParameters(rounds: rounds, salt: salt) }

    public var symmetricKey: SymmetricKey { SymmetricKey(data: key) }

    /// The config-file form.
    public var encoded: String {
        "\(Self.prefix)$\(rounds)$\(Data(salt).base64EncodedString())$\(Data(key).base64EncodedString())"
    }

    /// Passcode bytes: the UTF-8 of the NFC-normalised passcode, nothing trimmed.
    public static func passcodeBytes(_ passcode: String) -> [UInt8] {
        Array(passcode.precomposedStringWithCanonicalMapping.utf8)
    }

    /// PBKDF2-HMAC-SHA256(NFC(passcode) as UTF-8, salt, rounds, 32 bytes).
    public static func deriveKey(passcode: String, salt: [UInt8], rounds: UInt32) -> [UInt8] {
        // Only fails for an output size BoringSSL rejects; 32 is always fine.
        guard
            let k = try? KDF.Insecure.PBKDF2.deriveKey(
                from: passcodeBytes(passcode), salt: salt, using: .sha256,
                outputByteCount: keyLength, unsafeUncheckedRounds: Int(max(1, rounds)))
        else {
            return []
        }
        return k.withUnsafeBytes { Array($0) }
    }

    /// Derives the hash of `passcode` (random salt by default).
    public static func derive(passcode: String, rounds: UInt32 = defaultRounds, salt: [UInt8]? = nil) -> PasscodeHash {
        let s = salt ?? randomBytes(defaultSaltLength)
        return PasscodeHash(rounds: rounds, salt: s, key: deriveKey(passcode: passcode, salt: s, rounds: rounds))
    }

    /// What `lectern hash-passcode` prints.
    public static func make(passcode: String, rounds: UInt32 = defaultRounds, salt: [UInt8]? = nil) -> String {
        derive(passcode: passcode, rounds: rounds, salt: salt).encoded
    }

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case notAHash
        case badRounds(String)
        case badSalt
        case badKey
        public var description: String {
            switch self {
            case .notAHash: "not of the form pbkdf2-sha256$<rounds>$<salt base64>$<key base64>"
            case .badRounds(let s): "the round count \(s) is not a number from \(PasscodeHash.allowedRounds.lowerBound) to \(PasscodeHash.allowedRounds.upperBound)"
            case .badSalt: "the salt is not base64 of 8 to 64 bytes"
            case .badKey: "the key is not base64 of 32 bytes"
            }
        }
    }

    public static func isHashForm(_ s: String) -> Bool { s.hasPrefix(prefix + "$") }

    public static func parse(_ s: String) throws(ParseError) -> PasscodeHash {
        let parts = s.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == prefix else { throw .notAHash }
        let roundsText = String(parts[1])
        guard roundsText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), roundsText.utf8.count <= 9,
            let rounds = UInt32(roundsText), allowedRounds.contains(rounds)
        else { throw .badRounds(roundsText) }
        guard let salt = strictBase64(parts[2]), allowedSaltLengths.contains(salt.count) else { throw .badSalt }
        guard let key = strictBase64(parts[3]), key.count == keyLength else { throw .badKey }
        return PasscodeHash(rounds: rounds, salt: salt, key: key)
    }

    private static func strictBase64(_ s: Substring) -> [UInt8]? {
        guard !s.isEmpty, s.utf8.count % 4 == 0,
            s.utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2F || $0 == 0x3D }),
            let d = Data(base64Encoded: String(s))
        else { return nil }
        // Reject non-canonical encodings so that one key has one spelling.
        guard d.base64EncodedString() == s else { return nil }
        return Array(d)
    }
}

/// Cryptographically random bytes.
public func randomBytes(_ n: Int) -> [UInt8] {
    var g = SystemRandomNumberGenerator()
    return (0..<n).map { _ in UInt8.random(in: .min ... .max, using: &g) }
}

/// The register proof:
///
///     proof = HMAC-SHA256(key, "lectern-register-v1" || challenge(32) || role(u8)
///                              || u16 name length || name UTF-8
///                              || u8 token length (0 or 16) || token)
///
/// with key = PBKDF2-HMAC-SHA256(passcode, salt, rounds, 32) for the role asked for.
public enum RegisterProof {
    public static let domain = Array("lectern-register-v1".utf8)

    /// The exact bytes that are MAC'd.
    public static func message(challenge: [UInt8], role: Role, name: String, resumeToken: ResumeToken?) -> [UInt8] {
        var w = ByteWriter(capacity: 128)
        w.bytes(domain)
        w.bytes(challenge)
        w.u8(role.rawValue)
        w.string16(name)
        if let t = resumeToken { w.u8(UInt8(t.bytes.count)); w.bytes(t.bytes) } else { w.u8(0) }
        return w.bytes
    }

    /// Client side: from the key (derive it once with `PasscodeHash.deriveKey`).
    public static func compute(key: [UInt8], challenge: [UInt8], role: Role, name: String, resumeToken: ResumeToken?) -> [UInt8] {
        let mac = HMAC<SHA256>.authenticationCode(
            for: message(challenge: challenge, role: role, name: name, resumeToken: resumeToken),
            using: SymmetricKey(data: key))
        return Array(mac)
    }

    /// Client side, from the passcode and the parameters hello gave for the role.
    public static func compute(passcode: String, parameters: KDFParameters, challenge: [UInt8], role: Role, name: String, resumeToken: ResumeToken?) -> [UInt8] {
        compute(
            key: PasscodeHash.deriveKey(passcode: passcode, salt: parameters.salt, rounds: parameters.rounds),
            challenge: challenge, role: role, name: name, resumeToken: resumeToken)
    }

    /// Server side: constant-time check of a register request against the stored key
    /// for the role it asks for and the challenge sent on this connection.
    public static func verify(_ request: RegisterRequest, challenge: [UInt8], key: PasscodeHash) -> Bool {
        guard request.proof.count == 32, challenge.count == ProtocolLimits.challengeLength else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            request.proof,
            authenticating: message(challenge: challenge, role: request.role, name: request.name, resumeToken: request.resumeToken),
            using: key.symmetricKey)
    }
}

/// Proof that a client has a file the store already holds, so it need not send it:
///
///     possession = HMAC-SHA256(key: the connection's hello challenge,
///                              "lectern-possession-v1" || the whole file)
///
/// Knowing a content id (which the state shows to everyone) is not enough to claim a
/// file; the proof is bound to the connection, so it cannot be replayed on another.
public struct PossessionProof {
    public static let domain = Array("lectern-possession-v1".utf8)
    private var mac: HMAC<SHA256>

    public init(challenge: [UInt8]) {
        mac = HMAC<SHA256>(key: SymmetricKey(data: challenge))
        mac.update(data: Self.domain)
    }
    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 { mac.update(data: Array(bytes)) }
    public func finalize() -> [UInt8] { Array(mac.finalize()) }

    public static func compute<C: Collection>(challenge: [UInt8], file: C) -> [UInt8] where C.Element == UInt8 {
        var p = PossessionProof(challenge: challenge); p.update(file); return p.finalize()
    }
    /// Constant-time comparison of a received proof with the one computed from the stored file.
    public static func matches(_ received: [UInt8], expected: [UInt8]) -> Bool {
        guard received.count == 32, expected.count == 32 else { return false }
        var diff: UInt8 = 0
        for i in 0..<32 { diff |= received[i] ^ expected[i] }
        return diff == 0
    }
}

/// Incremental SHA-256 for verifying uploads.
public struct ContentHasher {
    private var h = SHA256()
    public init() {}
    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 { h.update(data: Array(bytes)) }
    public func finalize() -> ContentID {
        ContentID(bytes: Array(h.finalize()))!   // SHA-256 digests are always 32 bytes
    }
    public static func id<C: Collection>(of bytes: C) -> ContentID where C.Element == UInt8 {
        var c = ContentHasher(); c.update(bytes); return c.finalize()
    }
}

/// Per-source throttle of failed register attempts: at most `freeFailures` (5) failures
/// within `window` (60 s); after that each further attempt must wait `baseDelay` (2 s)
/// after the last failure, doubling with every further failure, at most `maxDelay`
/// (60 s). Failures older than the window are forgotten. Pure: time is passed in.
///
/// Key it by address and role (`AuthThrottle.key(address:role:)`) so that a success as
/// presenter does not wipe the failures of guessing the moderator passcode.
///
/// On top of that, the whole room checks at most 30 wrong proofs per role in any 60
/// seconds, whatever the address (so that many addresses don't multiply the rate): a
/// budget of `globalBurst` (5) wrong proofs at once, refilled at `globalPerMinute` (25) a
/// minute — one every 2.4 s — so that no 60-second window holds more than 5 + 25.
/// Once the budget is spent, each wrong proof it allows again (a slot) is open for its
/// first `newcomerHead` seconds (1 s) only to newcomers:
/// sources with no wrong proof within the window that started waiting at most
/// `newcomerWait` seconds ago (an address that has been kept waiting longer is guessing,
/// not a person who just typed the passcode). So during a guessing attack from addresses
/// that keep trying, the right passcode from an address of its own is checked at the next
/// slot, within 2.4 s (docs/protocol.md §7.3). Use `attempt(_:role:now:)` for each register
/// and `recordFailure(_:role:now:)` for each wrong proof.
public struct AuthThrottle: Equatable, Sendable {
    public enum Decision: Equatable, Sendable {
        case allowed
        case wait(seconds: Double)
    }

    public let freeFailures: Int
    public let window: Double
    public let baseDelay: Double
    public let maxDelay: Double
    /// At most this many sources are remembered; the stalest are forgotten first.
    public let maxTrackedSources: Int
    /// Wrong proofs per role the whole room may make at once, and how fast that refills.
    public let globalBurst: Double
    public let globalPerMinute: Double
    /// How long each slot is kept for sources that have not guessed wrong lately.
    public let newcomerHead: Double
    /// A newcomer who started waiting this long ago is one no more.
    public var newcomerWait: Double { 2 * spacing }
    private var failures: [String: [Double]] = [:]
    /// Sources told to wait by the room's pace: since when (forgotten once checked, or
    /// after a window without an attempt).
    private var waiting: [String: Waiting] = [:]
    private struct Waiting: Equatable, Sendable {
        var since: Double
        var last: Double
    }
    /// Per role: the budget left and when it was last brought up to date.
    private var budgets: [Role: Budget] = [:]
    private struct Budget: Equatable, Sendable {
        var tokens: Double
        var at: Double
    }

    public init(
        freeFailures: Int = 5, window: Double = 60, baseDelay: Double = 2, maxDelay: Double = 60, maxTrackedSources: Int = 4096,
        globalBurst: Double = 5, globalPerMinute: Double = 25, newcomerHead: Double = 1
    ) {
        self.freeFailures = freeFailures
        self.window = window
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxTrackedSources = maxTrackedSources
        self.globalBurst = max(1, globalBurst)
        self.globalPerMinute = max(0.01, globalPerMinute)
        self.newcomerHead = max(0, min(newcomerHead, 60 / self.globalPerMinute))
    }

    /// Seconds the budget takes to allow one more wrong proof.
    public var spacing: Double { 60 / globalPerMinute }

    private func budget(_ role: Role, _ now: Double) -> Double {
        guard let b = budgets[role] else { return globalBurst }
        return min(globalBurst, b.tokens + max(0, now - b.at) / spacing)
    }

    /// May a source try `role` now, as far as the room's budget goes? `newcomer`: the
    /// source may use a slot from its start; others `newcomerHead` seconds later (while
    /// the budget is not spent, anyone may). If not, how long to wait.
    public func checkGlobal(role: Role, newcomer: Bool = true, now: Double) -> Decision {
        guard let b = budgets[role] else { return .allowed }
        let ready = b.tokens >= 1 ? b.at : b.at + (1 - b.tokens) * spacing
        let opens = ready + (newcomer || b.tokens >= 1 ? 0 : newcomerHead)
        return now >= opens ? .allowed : .wait(seconds: opens - now)
    }

    /// A source with no wrong proof within the window that has not been kept waiting long.
    public func isNewcomer(_ key: String, now: Double) -> Bool {
        guard recent(key, now).isEmpty else { return false }
        guard let w = waiting[key], now - w.last < window else { return true }
        return now - w.since <= newcomerWait
    }

    /// A register for `key` and `role`: the decision of `check`, and a source told to wait
    /// by the room's pace is remembered as waiting since now (its first such answer).
    public mutating func attempt(_ key: String, role: Role, now: Double) -> Decision {
        let d = check(key, role: role, now: now)
        if case .allowed = d {
            waiting[key] = nil
        } else {
            let since = waiting[key].flatMap { now - $0.last < window ? $0.since : nil } ?? now
            waiting[key] = Waiting(since: since, last: now)
            if waiting.count > maxTrackedSources {
                waiting = waiting.filter { now - $0.value.last < window }
                if waiting.count > maxTrackedSources {
                    for k in waiting.sorted(by: { $0.value.last < $1.value.last }).prefix(waiting.count - maxTrackedSources).map(\.key) { waiting[k] = nil }
                }
            }
        }
        return d
    }

    /// The per-source check and the room's pace for `role`: the longer wait of the two.
    public func check(_ key: String, role: Role, now: Double) -> Decision {
        let newcomer = isNewcomer(key, now: now)
        switch (check(key, now: now), checkGlobal(role: role, newcomer: newcomer, now: now)) {
        case (.allowed, .allowed): return .allowed
        case (.wait(let a), .allowed), (.allowed, .wait(let a)): return .wait(seconds: a)
        case (.wait(let a), .wait(let b)): return .wait(seconds: max(a, b))
        }
    }

    /// A wrong proof: counted for the source and against the room's budget for `role`.
    public mutating func recordFailure(_ key: String, role: Role, now: Double) {
        recordFailure(key, now: now)
        budgets[role] = Budget(tokens: max(0, budget(role, now) - 1), at: now)
    }

    public static func key(address: String, role: Role) -> String { "\(address)/\(role)" }

    private func recent(_ key: String, _ now: Double) -> [Double] {
        (failures[key] ?? []).filter { $0 > now - window }
    }

    /// May this source try now? If not, how long to wait.
    public func check(_ key: String, now: Double) -> Decision {
        let r = recent(key, now)
        guard r.count >= freeFailures, let last = r.last else { return .allowed }
        let excess = r.count - freeFailures
        let delay = min(maxDelay, baseDelay * pow(2, Double(min(excess, 30))))
        let earliest = last + delay
        return now >= earliest ? .allowed : .wait(seconds: earliest - now)
    }

    public mutating func recordFailure(_ key: String, now: Double) {
        var r = recent(key, now)
        r.append(now)
        failures[key] = r
        if failures.count > maxTrackedSources { prune(now: now) }
        if failures.count > maxTrackedSources {
            // Still too many: forget the sources whose last failure is oldest.
            let drop = failures.count - maxTrackedSources
            for k in failures.sorted(by: { ($0.value.last ?? 0) < ($1.value.last ?? 0) }).prefix(drop).map(\.key) {
                failures[k] = nil
            }
        }
    }

    public mutating func recordSuccess(_ key: String, now: Double) {
        failures[key] = nil
    }

    /// Forgets sources with no failure within the window.
    public mutating func prune(now: Double) {
        failures = failures.filter { $0.value.contains { $0 > now - window } }
    }

    /// Failures of `key` still counted.
    func failureCount(_ key: String, now: Double) -> Int { recent(key, now).count }
}
