import Foundation
import LecternModel
import LecternSystem
import Glibc

/// glibc's heap, tuned for an appliance that runs for months.
///
/// A frame is 8 MiB at 1080p. glibc serves such blocks with mmap, but after the first one
/// is freed it raises its mmap threshold to that size (the "dynamic threshold"), and from
/// then on frames come from the heap, whose freed middle pages stay with the process: the
/// resident size grows with every deck shown. A fixed threshold keeps large blocks mapped
/// (unmapped, back to the system, when freed); `giveBack` trims what the heap holds free.
public enum Memory {
    /// Fixes glibc's mmap threshold at 6 MiB (the dynamic threshold off). Once, at start.
    /// Above what an upload allocates and frees by the hundred (1 MiB chunks, the frame
    /// decoder's buffer of up to 4 MiB: mapping and unmapping those halved the upload speed
    /// at 1 and 2 MiB), below a 1080p frame (8 MiB), the size that grew the heap deck after
    /// deck. Smaller outputs' frames stay in the heap, trimmed by `giveBack`.
    /// Fixing it also fixes the trim threshold at glibc's default (128 KiB): the heap's top
    /// would go back to the system at nearly every free and be faulted in again at the next
    /// chunk, so that is set to 32 MiB; `giveBack` trims the rest when a document goes.
    public static func tuneForLongLife() {
        _ = mallopt?(mmapThreshold, 6 << 20)
        _ = mallopt?(trimThreshold, 32 << 20)
    }

    /// Returns the heap's free memory to the system (after an opened document went).
    public static func giveBack() { _ = mallocTrim?(0) }

    // glibc's <malloc.h> is not in Swift's Glibc module: looked up by name.
    private static let mmapThreshold: Int32 = -3   // M_MMAP_THRESHOLD
    private static let trimThreshold: Int32 = -1   // M_TRIM_THRESHOLD
    private static let mallopt = LibcSymbol.lookup("mallopt", as: (@convention(c) (Int32, Int32) -> Int32).self)
    private static let mallocTrim = LibcSymbol.lookup("malloc_trim", as: (@convention(c) (Int) -> Int32).self)
}
