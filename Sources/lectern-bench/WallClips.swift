import Dispatch
import Foundation
import LecternModel
import LecternPipeline
import LecternRender
import LecternService
import LecternVideo
import Synchronization

/// Clips on the wall as the service plays them: `ClipSource`s (a producer thread each,
/// decoding and scaling ahead) attached to a `Stage`, whose one display loop takes their
/// frames at each refresh of `output` and presents. What the video, sound and two-clips
/// benches measure.
enum WallClips {
    /// A stage over `output` with nothing on it but black.
    static func stage(_ output: Output) throws -> Stage {
        let m = output.mode
        let compositor = Compositor(
            settings: .init(width: m.width, height: m.height), idle: IdleScreen(room: "Bench", addresses: [], port: 7420),
            documents: { _ in throw ContentError.notAPDF })
        let stage = Stage(output: output, compositor: compositor)
        try stage.show(.blank(.black))
        return stage
    }

    /// One clip over the whole wall (today's `play`), played to its end.
    static func playFullScreen(_ decoder: ClipDecoder, on stage: Stage, control: PlaybackControl = PlaybackControl(), sound: sending ClipSound? = nil) -> PlaybackResult {
        let size = stage.sourceSize(layout: .full, pane: 0)
        let end = Ends(1)
        let source = ClipSource(
            decoder: decoder, loop: false, control: control, sound: sound, background: .black, width: size.width, height: size.height,
            onEnd: { end.set(0, $0) })
        stage.attach(serial: 1, source)
        try? stage.show(WallPlan(layout: .full, panes: [.clip(serial: 1)]))
        source.start()
        let result = end.wait()[0]
        stage.detach(serial: 1)
        return result
    }

    /// Clips in the panes of `layout` (one each, in pane order), played to their ends.
    static func playInPanes(_ decoders: [ClipDecoder], layout: WallLayout, on stage: Stage) throws -> [PlaybackResult] {
        let m = stage.output.mode
        let rects = layout.paneRects(width: m.width, height: m.height)
        let ends = Ends(decoders.count)
        let sources = decoders.enumerated().map { i, d in
            ClipSource(
                decoder: d, loop: false, control: PlaybackControl(), sound: nil, background: .black, width: rects[i].width, height: rects[i].height,
                threads: .inPane(of: layout.paneCount), onEnd: { ends.set(i, $0) })
        }
        for (i, s) in sources.enumerated() { stage.attach(serial: i + 1, s) }
        try stage.show(WallPlan(layout: layout, panes: sources.indices.map { .clip(serial: $0 + 1) }))
        for s in sources { s.start() }
        let results = ends.wait()
        for i in sources.indices { stage.detach(serial: i + 1) }
        return results
    }

    /// The sources' ends, from their producers' threads.
    final class Ends: Sendable {
        private let results: Mutex<[PlaybackResult?]>
        private let bell = DispatchSemaphore(value: 0)
        init(_ n: Int) { results = Mutex(Array(repeating: nil, count: n)) }
        func set(_ i: Int, _ r: PlaybackResult) {
            results.withLock { $0[i] = r }
            bell.signal()
        }
        /// Every source's result, once all have ended.
        func wait() -> [PlaybackResult] {
            while true {
                let all = results.withLock { $0 }
                if all.allSatisfy({ $0 != nil }) { return all.map { $0! } }
                bell.wait()
            }
        }
    }
}

/// User + system CPU seconds of this process (all its threads), or of its waited-for children.
func cpuSeconds(children: Bool = false) -> Double {
    var u = rusage()
    _ = getrusage(__rusage_who_t(truncatingIfNeeded: (children ? RUSAGE_CHILDREN : RUSAGE_SELF).rawValue), &u)
    return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6 + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
}

/// Whether the long runs were asked for (LECTERN_BENCH_LONG=1): the 60 s where the
/// default is shorter.
var benchLong: Bool { ProcessInfo.processInfo.environment["LECTERN_BENCH_LONG"] == "1" }
