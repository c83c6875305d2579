import Foundation

/// How many threads a clip decodes and scales with: its pane's share of the cores.
///
/// Alone on the wall (one pane), a clip takes what FFmpeg picks by itself (frame threads,
/// one per core and one more) and slice threads for the scaler, one per core up to four: a big clip
/// decodes on every core. Beside others (split, stack, pip, quad), each pane's clip decodes
/// on `cores / panes` threads (at least one): the clips already run side by side on the
/// cores, and more threads than cores only add wake-ups and frames held in flight. Measured
/// with two 1080p30 clips split on two cores (`make bench`, `clips2`, five alternating 10 s
/// runs): 11.5 ms of CPU a wall frame with one thread each, 12.5 ms with FFmpeg's three
/// each, no frame dropped either way. A value: no threads of its own.
public struct ClipThreads: Equatable, Sendable {
    /// FFmpeg's `thread_count` for the decoder: 0 lets FFmpeg pick (one per core, plus one).
    public var decoder: Int
    /// Slice threads for the scaler.
    public var scaler: Int

    public init(decoder: Int, scaler: Int) {
        self.decoder = max(0, decoder)
        self.scaler = max(1, scaler)
    }

    /// The share of `cores` for a clip in one of `panes` panes.
    public init(cores: Int, panes: Int) {
        let cores = max(1, cores)
        if panes <= 1 {
            self.init(decoder: 0, scaler: min(4, cores))
        } else {
            let share = max(1, cores / panes)
            self.init(decoder: share, scaler: min(4, share))
        }
    }

    /// Alone on the wall, on this machine's cores.
    public static var alone: ClipThreads { ClipThreads(cores: onThisMachine, panes: 1) }

    /// A clip in one of `panes` panes, on this machine's cores.
    public static func inPane(of panes: Int) -> ClipThreads { ClipThreads(cores: onThisMachine, panes: panes) }

    /// The cores this process may run on.
    public static var onThisMachine: Int { ProcessInfo.processInfo.activeProcessorCount }
}
