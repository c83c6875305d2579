import Dispatch
import Logging

/// The watchdog's heartbeat: every `interval` seconds asks the display loop whether it is
/// alive (`Stage.heartbeat`: a ping through its mailbox that it answers between two
/// presents) and, once it answered, calls `alive` (systemd's WATCHDOG=1). A wedged flip or
/// a loop stuck anywhere doesn't answer, `alive` stops being called, systemd restarts us.
final class Heartbeat {
    private let timer: DispatchSourceTimer

    init(stage: Stage, interval: Double, logger: Logger, alive: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "lectern.heartbeat"))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler {
            do { try stage.heartbeat(timeout: max(0.5, interval / 2)); alive() } catch { logger.error("heartbeat: \(error)") }
        }
        timer.resume()
    }

    func cancel() { timer.cancel() }
}
