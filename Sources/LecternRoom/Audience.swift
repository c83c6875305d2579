import Foundation
import LecternProtocol

/// Who is in the audience: viewers by connection, their names ("Guest 7" when none is
/// given) and their device identity (the resume token a viewer gets at register and
/// brings back on a reconnect). Pure; owned by `RoomCore`. A viewer is not a floor device:
/// it has no device id and never appears in the state's `devices`.
public struct Audience: Equatable, Sendable {
    public struct Viewer: Equatable, Sendable {
        public let number: Int
        public var name: String
        public let token: ResumeToken
        /// What polls and questions know the device by: a hash of its token, never its name.
        public var voter: String { Audience.voterKey(token) }
        /// What its page images are fetched with (§24.2).
        public let imageKey: String
    }

    public let capacity: Int
    private(set) var byConnection: [ConnectionID: Viewer] = [:]
    /// Tokens handed out in this meeting, with the guest number they came with.
    private var known: [ResumeToken: Int] = [:]
    private var nextGuest = 1
    /// The page-image keys of the viewers connected now, with how many connections each has.
    private var imageKeyCount: [String: Int] = [:]
    /// The keys that may fetch page images now (§24.2); changes only on a join or a leave.
    public private(set) var imageKeys: Set<String> = []

    public init(capacity: Int = AudienceLimits.maxViewers) { self.capacity = capacity }

    public var count: Int { byConnection.count }
    /// Whether `token` is a device identity of this meeting (its answers are its own).
    public func knows(_ token: ResumeToken?) -> Bool { token.map { known[$0] != nil } ?? false }
    public func viewer(_ c: ConnectionID) -> Viewer? { byConnection[c] }

    /// A viewer joins; with a token it had before (this meeting), it is the same device
    /// again (its answers and votes are its own). Returns the viewer and whether it resumed.
    public mutating func join(_ c: ConnectionID, name: String, token: ResumeToken?, fresh: () -> ResumeToken) throws(LecternError) -> (Viewer, Bool) {
        guard byConnection.count < capacity else { throw .audienceFull(capacity) }
        guard name.isEmpty || DeviceName.isValid(name) else { throw .invalidName }
        var resumed = false
        let t: ResumeToken
        if let token, known[token] != nil {
            t = token
            resumed = true
        } else {
            // Bounded: past 4 × capacity identities, those not connected now are forgotten
            // (a phone that comes back after that is a new device).
            if known.count >= 4 * capacity {
                let connected = Set(byConnection.values.map(\.token))
                known = known.filter { connected.contains($0.key) }
            }
            t = fresh()
            known[t] = nextGuest
            nextGuest += 1
        }
        let number = known[t] ?? 0
        let v = Viewer(number: number, name: name.isEmpty ? "Guest \(number)" : name, token: t, imageKey: PageImageAddress.key(for: t))
        if let old = byConnection[c] { dropKey(old.imageKey) }
        byConnection[c] = v
        imageKeyCount[v.imageKey, default: 0] += 1
        imageKeys.insert(v.imageKey)
        return (v, resumed)
    }

    public mutating func leave(_ c: ConnectionID) {
        guard let v = byConnection.removeValue(forKey: c) else { return }
        dropKey(v.imageKey)
    }

    private mutating func dropKey(_ k: String) {
        let n = (imageKeyCount[k] ?? 1) - 1
        if n > 0 { imageKeyCount[k] = n } else { imageKeyCount[k] = nil; imageKeys.remove(k) }
    }

    /// The meeting ended: every device identity is forgotten.
    public mutating func forgetIdentities() {
        known = known.filter { k, _ in byConnection.values.contains { $0.token == k } }
    }

    /// Known identities survive a restart (a phone that reconnects is the same device).
    var savedTokens: [String: Int] { Dictionary(uniqueKeysWithValues: known.map { ($0.key.description, $0.value) }) }
    mutating func restore(tokens: [String: Int]) {
        for (hex, n) in tokens {
            if let t = ResumeToken(hex: hex) { known[t] = n; nextGuest = max(nextGuest, n + 1) }
        }
    }

    public static func voterKey(_ token: ResumeToken) -> String {
        ContentHasher.id(of: Array("lectern-voter-v1".utf8) + token.bytes).hex.prefix(24).description
    }
}

extension ResumeToken {
    /// A token as `description` writes it (32 hex digits); nil for anything else, whatever
    /// a damaged state file holds.
    init?(hex: String) {
        guard hex.utf8.count == 32, let bytes = bytesFromHex(hex) else { return nil }
        self.init(bytes: bytes)
    }
}
