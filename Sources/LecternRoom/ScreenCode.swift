import LecternProtocol

/// The code on the wall (`screen_code = true`): a 6-digit code drawn on the idle screen
/// that is the presenter passcode, so joining needs someone who can see the wall. It
/// changes only when a meeting ends (the last floor device — presenter or moderator — has
/// left the room) and after `lifetime` seconds, whoever else comes and goes (viewers
/// joining and leaving an open audience are no meeting: docs/protocol.md §7.3), and never
/// repeats the code before it. Pure: the caller gives the time and the randomness (the
/// shell: the system's random source).
public struct ScreenCode: Equatable, Sendable {
    public static let digits = 6
    public private(set) var code: String
    /// The code before this one (refused like any wrong passcode: tests check it).
    public private(set) var previous: String?
    public private(set) var issuedAt: Double
    public let lifetime: Double
    private var hadDevices = false

    public init(lifetime: Double, now: Double, random: () -> UInt32) {
        self.lifetime = lifetime
        code = Self.draw(random, not: nil)
        issuedAt = now
    }

    /// A floor device (presenter or moderator) registered: a meeting is on (even if it
    /// leaves before the next `check`).
    public mutating func joined() { hadDevices = true }

    /// Someone registered: a floor device starts a meeting; a viewer doesn't (the meeting's
    /// end counts floor devices only, so a viewer's join must not count either).
    public mutating func registered(floorDevice: Bool) {
        if floorDevice { joined() }
    }

    /// Looks at the room at `now` (`devices`: registered floor devices, present or in their
    /// grace period; viewers are not counted). True when the code changed: the shell then re-keys the room and redraws
    /// the idle screen.
    public mutating func check(now: Double, devices: Int, random: () -> UInt32) -> Bool {
        let meetingEnded = hadDevices && devices == 0
        hadDevices = hadDevices && !meetingEnded || devices > 0
        guard meetingEnded || now - issuedAt >= lifetime else { return false }
        previous = code
        code = Self.draw(random, not: code)
        issuedAt = now
        return true
    }

    /// Six digits, uniformly (rejection sampling), never `not`.
    static func draw(_ random: () -> UInt32, not: String?) -> String {
        let limit: UInt32 = 1_000_000
        let bound = UInt32.max - UInt32.max % limit
        while true {
            let r = random()
            guard r < bound else { continue }
            var s = String(r % limit)
            while s.count < digits { s = "0" + s }
            if s != not { return s }
        }
    }

    /// "123 456": how the wall shows it (two groups read better from the back of the room).
    public static func spaced(_ code: String) -> String {
        guard code.count == digits else { return code }
        return String(code.prefix(3)) + " " + String(code.suffix(3))
    }
}

extension RoomCore {
    /// Connection `id` is registered as a floor device (presenter or moderator), not a
    /// viewer: what the code on the wall counts as a meeting.
    public func isFloorDevice(_ id: ConnectionID) -> Bool { peers[id]?.deviceID != nil }
}
