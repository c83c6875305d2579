/// The state's `epoch` (docs/protocol.md §14.1): which run of the service a state comes
/// from. `revision` is kept in memory and starts again at every start (a kill -9 loses the
/// count with the process), so instead of a revision that must never go back, every run
/// gets a new epoch: 64 random bits, 16 lower-case hex digits. A client that sees an epoch
/// other than its last state's takes the new state whatever its revision.
public enum StateEpoch {
    /// A fresh epoch: 16 lower-case hex digits.
    public static func random() -> String {
        var g = SystemRandomNumberGenerator()
        return make(g.next())
    }

    /// The epoch of `bits` (tests).
    public static func make(_ bits: UInt64) -> String {
        let digits = String(bits, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
