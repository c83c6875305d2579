import Foundation
import LecternModel
import LecternSystem
import Synchronization

/// A fixed number of threads that draw pages for the display loop (never the loop itself):
/// a slow page holds one of them, not the output. Jobs run in the order they came.
final class RenderPool: Sendable {
    private let jobs = Mutex<(queue: [@Sendable () -> Void], stopped: Bool)>(([], false))
    private let bell = DispatchSemaphore(value: 0)

    init(name: String, width: Int) {
        for i in 0..<width {
            let t = Thread { [self] in
                ThreadName.set("\(name).\(i)")   // the name the kernel shows (/proc, top -H)
                while let job = next() { job() }
            }
            t.name = "\(name).\(i)"
            t.start()
        }
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.queue.append(job) }
        bell.signal()
    }

    func stop(threads: Int) {
        jobs.withLock { $0.stopped = true }
        for _ in 0..<threads { bell.signal() }
    }

    private func next() -> (@Sendable () -> Void)? {
        while true {
            bell.wait()
            let (job, stopped) = jobs.withLock { s -> ((@Sendable () -> Void)?, Bool) in
                if s.queue.isEmpty { return (nil, s.stopped) }
                return (s.queue.removeFirst(), false)
            }
            if let job { return job }
            if stopped { return nil }
        }
    }
}
