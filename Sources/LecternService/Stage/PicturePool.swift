import Foundation
import LecternModel
import LecternSystem
import NIOConcurrencyHelpers

/// A fixed pool for pictures (page previews: docs/protocol.md §13): at most `width`
/// threads, each alive while there is work and gone when the queue is empty; jobs wait
/// their turn in order. No thread per picture: 60 viewers asking at once cost `width`
/// threads, and what waits is bounded by the room's `PictureBudget` (it admits a picture
/// only if its bytes fit), not by this queue.
final class PicturePool: Sendable {
    typealias Job = @Sendable () -> Void

    let name: String
    let width: Int
    private struct State {
        var queue: [Job] = []
        var head = 0
        var running = 0
    }
    private let state = NIOLockedValueBox(State())

    init(name: String, width: Int) {
        self.name = name
        self.width = max(1, width)
    }

    /// Threads working now (at most `width`).
    var threads: Int { state.withLockedValue { $0.running } }

    func submit(_ job: @escaping Job) {
        let start = state.withLockedValue { s -> Bool in
            s.queue.append(job)
            guard s.running < width else { return false }
            s.running += 1
            return true
        }
        if start { spawn() }
    }

    private func next() -> Job? {
        state.withLockedValue { s -> Job? in
            guard s.head < s.queue.count else {
                s.queue.removeAll(keepingCapacity: false)
                s.head = 0
                s.running -= 1
                return nil
            }
            let job = s.queue[s.head]
            s.head += 1
            return job
        }
    }

    private func spawn() {
        let thread = Thread { [self] in
            ThreadName.set(name)   // the name the kernel shows (/proc, top -H)
            while let job = next() { job() }
        }
        thread.name = name
        thread.start()
    }
}
