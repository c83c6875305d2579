import Foundation
import LecternCore
import LecternTestSupport
import LecternVideo

/// Issue 26: two 1080p30 H.264 clips side by side (`WallLayout.split` on 1920×1080), each a
/// `ClipSource` sized to its pane, and a driver playing the display loop's role at 60 Hz in
/// real time: it takes each source's due frame and copies it into one 1920×1080 frame at its
/// pane. Reports the frames dropped (goal 0), the CPU per frame of the wall (at the clips'
/// 30 fps, each holding a frame of both; lectern's includes the driver's copies) against the ffmpeg
/// CLI decoding the same two, scaling each to its pane and stacking them into one 1920×1080
/// picture (goal: ffmpeg's CPU / ours ≥ 0.95), and p50/p99 of the driver's take + copy.
/// Clip length: LECTERN_BENCH_TWOCLIPS_SECONDS (default 60, the figure).
func runTwoClipsBenchmark() {
    do { try TwoClipsBench.run() } catch { print("two clips benchmark failed: \(error)") }
}

private enum TwoClipsBench {
    static let width = 1920, height = 1080

    static func run() throws {
        let seconds = Double(ProcessInfo.processInfo.environment["LECTERN_BENCH_TWOCLIPS_SECONDS"] ?? "") ?? 60
        let dir = Fixtures.tempDir("twoclips-bench")
        let clips = [
            try clip(in: dir, name: "a.mp4", source: "testsrc2", seconds: seconds),
            try clip(in: dir, name: "b.mp4", source: "testsrc", seconds: seconds),
        ]
        let panes = WallLayout.split.paneRects(width: width, height: height)
        let ours = try play(clips, panes: panes)
        let theirs = try ffmpeg(clips, panes: panes)
        print("two 1080p30 clips side by side (split, panes \(panes[0]) and \(panes[1])), \(Int(seconds)) s in real time at 60 Hz:")
        print(
            String(
                format: "  lectern   presented %d + %d, dropped %d + %d (goal 0), %d refreshes composed, %.2f ms CPU/frame, %.1f %% of one core",
                ours.presented[0], ours.presented[1], ours.dropped[0], ours.dropped[1], ours.composed,
                ours.cpu / Double(max(1, theirs.frames)) * 1000, ours.cpu / ours.wall * 100))
        print(
            String(
                format: "  ffmpeg    scale,pad each + hstack,format=bgr0: %d frames, %.2f ms CPU/frame",
                theirs.frames, theirs.cpu / Double(max(1, theirs.frames)) * 1000))
        // Per frame of the wall at the clips' 30 fps (each holding a frame of both clips): the
        // same count for both, whatever refreshes the two clips' frames fell on.
        let ratio = theirs.cpu / ours.cpu
        print(String(format: "  ratio ffmpeg CPU/lectern CPU per frame = %.3f (goal >= 0.95)", ratio))
        print("  take + copy per refresh  p50 \(ms(percentile(ours.takes, 0.5)))  p99 \(ms(percentile(ours.takes, 0.99)))")
        print("  ends: \(ours.ends)")
    }

    struct Ours {
        var presented: [Int], dropped: [Int], composed: Int, cpu: Double, wall: Double, takes: [Double]
        var ends: [String]
    }

    final class Ends: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Int: PlaybackResult] = [:]
        func set(_ i: Int, _ r: PlaybackResult) { lock.withLock { results[i] = r } }
        func get(_ i: Int) -> PlaybackResult? { lock.withLock { results[i] } }
    }

    static func play(_ clips: [String], panes: [PixelRect]) throws -> Ours {
        let ends = Ends()
        var sources: [ClipSource] = []
        for (i, path) in clips.enumerated() {
            let d = try ClipDecoder(path: path)
            sources.append(
                ClipSource(
                    decoder: d, loop: false, control: PlaybackControl(), sound: nil, background: .black,
                    width: panes[i].width, height: panes[i].height, onEnd: { ends.set(i, $0) }))
        }
        let wall = Frame(width: width, height: height)
        let period = 1.0 / 60
        let cpu0 = cpuSeconds()
        let start = MonotonicClock.now()
        for s in sources { s.start() }
        let t0 = start + 0.1
        var k = 0
        var composed = 0
        var takes: [Double] = []
        while ends.get(0) == nil || ends.get(1) == nil {
            let t = t0 + Double(k) * period
            MonotonicClock.sleep(until: t)
            let a = MonotonicClock.now()
            var any = false
            for (i, s) in sources.enumerated() {
                guard let f = s.frame(forRefreshAt: t, refreshPeriod: period) else { continue }
                copy(f, into: wall, at: panes[i])
                s.presented(at: t)
                any = true
            }
            takes.append(MonotonicClock.now() - a)
            if any { composed += 1 }
            k += 1
        }
        let elapsed = MonotonicClock.now() - start
        let cpu = cpuSeconds() - cpu0
        let results = [ends.get(0)!, ends.get(1)!]
        return Ours(
            presented: results.map(\.status.presented), dropped: results.map(\.status.dropped), composed: composed,
            cpu: cpu, wall: elapsed, takes: takes, ends: results.map { "\($0.end)" })
    }

    /// What the display loop does with a pane's frame: rows into the wall at the pane.
    static func copy(_ f: Frame, into wall: Frame, at pane: PixelRect) {
        let w = min(f.width, pane.width) * 4
        for y in 0..<min(f.height, pane.height) {
            (wall.baseAddress + (pane.y + y) * wall.stride + pane.x * 4).copyMemory(
                from: f.baseAddress + y * f.stride, byteCount: w)
        }
    }

    static func ffmpeg(_ clips: [String], panes: [PixelRect]) throws -> (frames: Int, cpu: Double) {
        var chains: [String] = []
        for (i, path) in clips.enumerated() {
            let info = try ClipProbe.probe(path: path)
            let r = Fit.rect(for: info.shape, width: panes[i].width, height: panes[i].height)
            chains.append(
                "[\(i):v]scale=\(r.width):\(r.height),pad=\(panes[i].width):\(panes[i].height):\(r.x):\(r.y)[p\(i)]")
        }
        let graph = chains.joined(separator: ";") + ";[p0][p1]hstack,format=bgr0"
        let cpu0 = cpuSeconds(children: true)
        let r = try Fixtures.run(
            "ffmpeg",
            ["-v", "error", "-threads", "0", "-i", clips[0], "-i", clips[1], "-filter_complex", graph, "-f", "null", "-"])
        guard r.status == 0 else { throw Fixtures.ToolError(description: "ffmpeg failed: \(r.err)") }
        let cpu = cpuSeconds(children: true) - cpu0
        let frames = Int((try ClipProbe.probe(path: clips[0]).duration * 30).rounded())
        return (frames, cpu)
    }

    static func clip(in dir: String, name: String, source: String, seconds: Double) throws -> String {
        let path = dir + "/" + name
        let r = try Fixtures.run(
            "ffmpeg",
            [
                "-y", "-v", "error", "-f", "lavfi", "-i", "\(source)=s=1920x1080:r=30:d=\(seconds)",
                "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high", "-bf", "3",
                "-pix_fmt", "yuv420p", path,
            ])
        guard r.status == 0 else { throw Fixtures.ToolError(description: "ffmpeg failed: \(r.err)") }
        return path
    }

    /// User + system CPU seconds of this process (all its threads), or of its waited-for children.
    static func cpuSeconds(children: Bool = false) -> Double {
        var u = rusage()
        _ = getrusage(__rusage_who_t(truncatingIfNeeded: (children ? RUSAGE_CHILDREN : RUSAGE_SELF).rawValue), &u)
        return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6
            + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
    }
}
