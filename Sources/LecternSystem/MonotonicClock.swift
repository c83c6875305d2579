import Foundation

/// Seconds on a clock that never jumps (CLOCK_MONOTONIC), for pacing and time-outs.
public enum MonotonicClock {
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Sleeps until the monotonic clock reads `deadline` (returns at once if it has passed).
    public static func sleep(until deadline: Double) {
        while true {
            let left = deadline - now()
            if left <= 0 { return }
            var ts = timespec(tv_sec: Int(left), tv_nsec: Int((left - Double(Int(left))) * 1e9))
            nanosleep(&ts, nil)
        }
    }
}
