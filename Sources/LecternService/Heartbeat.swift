import Dispatch
import Logging

/// The watchdog's heartbeat: every `interval` seconds presents the current scene again
/// through the stage (a real flip on KMS) and, once that returned, calls `alive` (systemd's
/// WATCHDOG=1). A stuck flip or decoder blocks the stage, `alive` stops being called,
/// systemd restarts us.
final class Heartbeat {
    private let timer: DispatchSourceTimer

    init(stage: Stage, interval: Double, logger: Logger, alive: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "lectern.heartbeat"))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler {
            do { try stage.heartbeat(); alive() } catch { logger.error("heartbeat: \(error)") }
        }
        timer.resume()
    }

    func cancel() { timer.cancel() }
}
