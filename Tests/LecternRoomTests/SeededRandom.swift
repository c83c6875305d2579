import LecternTestKit

/// The room core's tests' name for the seeded generator (LecternTestKit's SplitMix64): the
/// harness seeds it, so tokens, ids and the epoch are the same every run.
typealias SeededRandom = SplitMix
