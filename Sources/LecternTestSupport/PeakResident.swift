import Foundation

/// This process's peak resident memory (the kernel's high-water mark, VmHWM), which a
/// sampler can't miss however briefly the peak lasts: reset it, do the attack, read it.
public enum PeakResident {
    /// Sets the high-water mark back to what is resident now (Linux ≥ 4.0).
    public static func reset() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// The high-water mark since the last `reset()` (or the start), bytes.
    public static var bytes: Int { field("VmHWM:") }

    /// Resident now, bytes.
    public static var current: Int { field("VmRSS:") }

    private static func field(_ name: String) -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = s.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
            let kB = Int(line.dropFirst(name.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        else { return 0 }
        return kB << 10
    }
}
