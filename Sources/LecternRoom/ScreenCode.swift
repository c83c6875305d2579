/// The code on the wall (`screen_code = true`): a 6-digit code drawn on the idle screen
/// that is the presenter passcode, so joining needs someone who can see the wall. It
/// changes when a meeting ends (the last device has left the room) and after `lifetime`
/// seconds, and never repeats the code before it. Pure: the caller gives the time and the
/// randomness (the shell: the system's random source).
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

    /// A device registered: a meeting is on (even if it leaves before the next `check`).
    public mutating func joined() { hadDevices = true }

    /// Looks at the room at `now` (`devices`: registered devices, present or in their grace
    /// period). True when the code changed: the shell then re-keys the room and redraws
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
