import Foundation
import Synchronization
import Glibc

/// What this process holds (a service under test runs in it): resident memory and open
/// descriptors, for tests and benchmarks that bound what an attack costs.
public enum Footprint {
    /// Resident memory, bytes.
    public static func residentBytes() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = s.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Descriptors open now.
    public static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// Sets the soft descriptor limit to `n` (within the hard one); returns the old one.
    @discardableResult
    public static func setDescriptorLimit(_ n: Int) -> Int {
        var l = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &l)
        let old = Int(l.rlim_cur)
        l.rlim_cur = rlim_t(min(UInt64(n), UInt64(l.rlim_max)))
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &l)
        return old
    }
}

extension Footprint {
    /// How much more memory and how many more descriptors this process held at most while
    /// `body` ran than before it (sampled every 50 ms on another thread).
    public static func peakGrowth(during body: () throws -> Void) rethrows -> (bytes: Int, descriptors: Int) {
        let sampler = PeakSampler()
        let before = (residentBytes(), openDescriptors())
        sampler.start()
        defer { sampler.stop() }
        try body()
        sampler.sample()
        let peak = sampler.peak
        return (max(0, peak.bytes - before.0), max(0, peak.descriptors - before.1))
    }
}

/// Samples `Footprint` on its own thread until stopped, keeping the highest figures.
private final class PeakSampler: Sendable {
    private let running = Mutex(true)
    private let highest = Mutex((bytes: 0, descriptors: 0))
    private let done = DispatchGroup()

    var peak: (bytes: Int, descriptors: Int) { highest.withLock { $0 } }

    func sample() {
        let m = Footprint.residentBytes(), d = Footprint.openDescriptors()
        highest.withLock { $0 = (max($0.bytes, m), max($0.descriptors, d)) }
    }

    func start() {
        done.enter()
        Thread.detachNewThread { [self] in
            while running.withLock({ $0 }) {
                sample()
                Thread.sleep(forTimeInterval: 0.05)   // the sampling interval, not a wait for anything
            }
            done.leave()
        }
    }

    func stop() {
        running.withLock { $0 = false }
        done.wait()
    }
}
