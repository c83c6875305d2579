import Glibc

extension Fixtures {
    /// A pause that is itself the behaviour (a presenter who stops to talk, jitter between
    /// requests in a benchmark), never a way to let something happen: to wait for something,
    /// use `eventually`.
    @discardableResult
    public static func wait(seconds: Double) -> Bool {
        var ts = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        return nanosleep(&ts, nil) == 0
    }
}
