import Foundation
import LecternModel
import LecternSystem

/// What `eventually` throws when its deadline passes: it names what was awaited (and the
/// condition's last error, if it threw), so a failing test says what never happened.
public struct EventuallyTimeout: Error, CustomStringConvertible {
    public let what: String
    public let timeout: Double
    public let lastError: Error?

    public var description: String {
        "timed out after \(String(format: "%g", timeout)) s waiting for \(what)"
            + (lastError.map { " (last error: \($0))" } ?? "")
    }
}

/// The one way tests wait: until `condition` holds, or `timeout` seconds have passed, when
/// it throws `EventuallyTimeout` naming `what` (evaluated then, so it can say what was seen
/// instead). The condition is checked at once, then every `interval` seconds: pass 0 when
/// the condition itself waits for an event (a socket read with a short time-out, a
/// screendump). A condition that throws counts as not yet; its last error is reported.
///
/// The short wait between checks is not synchronisation: the check is. Never sleep in a test
/// to let something happen; wait for it to have happened.
public func eventually(
    _ what: @autoclosure () -> String, timeout: Double = 10, interval: Double = 0.02,
    _ condition: () throws -> Bool
) throws {
    let deadline = MonotonicClock.now() + timeout
    var lastError: Error?
    while true {
        do {
            if try condition() { return }
            lastError = nil
        } catch { lastError = error }
        let now = MonotonicClock.now()
        guard now < deadline else { throw EventuallyTimeout(what: what(), timeout: timeout, lastError: lastError) }
        if interval > 0 { MonotonicClock.sleep(until: min(deadline, now + interval)) }
    }
}

/// The same, on an event: `condition` is checked with `signal` locked, and the wait between
/// checks is on `signal` (whoever changes what the condition reads broadcasts it). Checks
/// at least every `interval` seconds too, for what changes without a broadcast (a process
/// that exits). A condition that throws ends the wait with its error (a process that
/// exited won't print what is awaited).
public func eventually(
    _ what: @autoclosure () -> String, timeout: Double = 10, on signal: NSCondition,
    interval: Double = 0.5, _ condition: () throws -> Bool
) throws {
    let deadline = Date().addingTimeInterval(timeout)
    signal.lock()
    defer { signal.unlock() }
    while try !condition() {
        guard Date() < deadline else { throw EventuallyTimeout(what: what(), timeout: timeout, lastError: nil) }
        _ = signal.wait(until: min(deadline, Date().addingTimeInterval(interval)))
    }
}
