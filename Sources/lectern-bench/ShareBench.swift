import Dispatch
import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternDisplay
import LecternProtocol
import LecternShare
import LecternTestSupport
import LecternVideo

/// Issue 28, live sharing (`LECTERN_BENCH_ONLY=share`):
/// (1) decode + scale per picture of a 1080p30 H.264 share (a `ShareSource`, as the service
///     runs it) against the ffmpeg CLI decoding and scaling the same stream, one thread each;
/// (2) the room while a 1080p30 share streams into a real service over TLS: a ping's round
///     trip and a page turn in the other pane of a split (command → reply, which comes once
///     shown), p50/p99, against the same with no share.
func runShareBenchmarks(pdf: String) {
    do {
        try ShareBench.decode()
        try ShareBench.room(pdf: pdf)
        try ShareLatencyBench.run()
    } catch { print("share benchmark failed: \(error)") }
}

private enum ShareBench {
    static func units(_ path: String) throws -> [AnnexBSplitter.Unit] {
        var s = AnnexBSplitter()
        var u = s.feed([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        if let last = s.finish() { u.append(last) }
        return u
    }

    static func cpuSeconds(children: Bool = false) -> Double {
        var u = rusage()
        _ = getrusage(__rusage_who_t(truncatingIfNeeded: (children ? RUSAGE_CHILDREN : RUSAGE_SELF).rawValue), &u)
        return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6 + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
    }

    /// Decodes `frames` one at a time through a `ShareSource` with `decoding` (nil: in this
    /// process); returns the wall time and the CPU (this process + reaped children) per picture.
    static func run(_ frames: [AnnexBSplitter.Unit], decoding: (@Sendable () throws -> ShareDecoding)?) -> (wall: Double, cpu: Double, decoded: Int) {
        let acked = DispatchSemaphore(value: 0)
        var r = ShareSource.Reports()
        r.ack = { _, _, _, _ in acked.signal() }
        let source = ShareSource(
            // Pictures as fast as the decoder takes them: a frame rate no sender would announce.
            codec: .h264, limits: ShareFlow.Limits(maxQueuedBytes: 64 << 20, maxQueuedFrames: 1000, bitrate: 200_000_000, frameRate: 1000),
            maxSide: 1920, maxPixels: 1920 * 1200, stallSeconds: 10, background: .black, width: 1920, height: 1080, reports: r, decoding: decoding)
        source.start()
        // The decoder process started and ready (its start is not a picture's cost).
        source.push(sequence: 0, key: frames[0].key, timestamp: 0, data: frames[0].bytes, now: MonotonicClock.now())
        if acked.wait(timeout: .now() + 20) == .timedOut { print("  (the decoder never answered: \(source.isEnded ? "the share ended" : "stuck"))") }
        let cpu0 = cpuSeconds(), t0 = MonotonicClock.now()
        var childCPU0 = 0.0
        if let pid = source.decoderProcessID { childCPU0 = processCPU(pid) }
        for (i, f) in frames.enumerated().dropFirst() {
            source.push(sequence: UInt32(i), key: f.key, timestamp: UInt64(i) * 33_333, data: f.bytes, now: MonotonicClock.now())
            // One at a time: the decoder's own pace.
            if acked.wait(timeout: .now() + 10) == .timedOut {
                print("  (no answer for picture \(i): \(source.isEnded ? "the share ended" : "stuck"))")
                break
            }
        }
        let wall = MonotonicClock.now() - t0
        var cpu = cpuSeconds() - cpu0
        if let pid = source.decoderProcessID { cpu += processCPU(pid) - childCPU0 }
        let decoded = source.counts.decoded
        source.stop()
        let n = Double(frames.count - 1)
        return (wall / n, cpu / n, decoded)
    }

    /// A process's CPU seconds so far (/proc/PID/stat utime + stime).
    static func processCPU(_ pid: Int32) -> Double {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = s.lastIndex(of: ")") else { return 0 }
        let f = s[s.index(after: close)...].split(separator: " ")
        guard f.count > 13, let u = Double(f[11]), let k = Double(f[12]) else { return 0 }
        return (u + k) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func decode() throws {
        let dir = Fixtures.tempDir("share-bench")
        let path = try Fixtures.annexB(in: dir, width: 1920, height: 1080, frames: 300, fps: 30, color: nil, keyEvery: 60, name: "s.h264")
        let frames = try units(path)
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        let lecternd = (exe as NSString).deletingLastPathComponent + "/lecternd"
        guard FileManager.default.isExecutableFile(atPath: lecternd) else { throw Fixtures.ToolError(description: "no lecternd beside the bench: \(lecternd)") }
        let limits = ShareDecoderProcess.Limits(memoryBytes: 256 << 20, cpuSeconds: 4, stallSeconds: 10, maxSide: 1920, maxPixels: 1920 * 1200)
        // Interleaved, two rounds each: the noise of a shared machine hits both.
        var inProcess: [(wall: Double, cpu: Double, decoded: Int)] = [], child: [(wall: Double, cpu: Double, decoded: Int)] = []
        for _ in 0..<2 {
            inProcess.append(run(frames, decoding: nil))
            child.append(run(frames, decoding: { try ShareDecoderProcess(executable: lecternd, limits: limits, background: .black) }))
        }
        let ours = inProcess.map(\.wall).min()!, ourCPU = inProcess.map(\.cpu).min()!
        let proc = child.map(\.wall).min()!, procCPU = child.map(\.cpu).min()!
        let c0 = cpuSeconds(children: true), w0 = MonotonicClock.now()
        let ff = try Fixtures.run(
            "ffmpeg", ["-v", "error", "-threads", "1", "-i", path, "-vf", "scale=1920:1080:flags=bicubic,format=bgr0", "-f", "null", "-"])
        precondition(ff.status == 0, ff.err)
        let n = Double(frames.count)
        let theirs = (MonotonicClock.now() - w0) / n, theirCPU = (cpuSeconds(children: true) - c0) / n
        print("share decode + scale, 1080p30 H.264 (testsrc2, \(frames.count) pictures), one decoder thread, best of 2:")
        print("  in this process    \(ms(ours)) per picture (CPU \(ms(ourCPU)); decoded \(inProcess[0].decoded))")
        print("  decoder process    \(ms(proc)) per picture (CPU \(ms(procCPU)), service + decoder; decoded \(child[0].decoded))")
        print("  ffmpeg CLI         \(ms(theirs)) per picture (CPU \(ms(theirCPU)), -threads 1, scale bicubic to bgr0)")
        print(
            String(
                format: "  ratio ffmpeg/decoder process per picture = %.3f (goal >= 0.95); the process costs %+.2f ms CPU a picture over in-process", theirs / proc,
                (procCPU - ourCPU) * 1000))
        print(String(format: "  service CPU for a 1080p30 share: %.0f %% of one core (decoder process included)", procCPU * 30 * 100))
    }

    static func room(pdf: String) throws {
        let dir = Fixtures.tempDir("share-room-bench")
        let path = try Fixtures.annexB(in: dir, width: 1920, height: 1080, frames: 300, fps: 30, color: nil, keyEvery: 60, name: "s.h264")
        let frames = try units(path)
        let h = try ServiceHarness(floor: .moderated)
        let mod = try h.moderator()
        let ana = try h.presenter("Ana")
        let ben = try h.presenter("Ben")
        _ = try ana.requestFloor()
        try mod.moderate(.grant, target: ana.deviceID)
        let deck = try ana.upload(path: pdf).content
        try ana.present(deck, page: 1)
        _ = try mod.request(.layoutSet(.split))
        _ = try mod.request(.paneSet(PaneRequest(pane: 1, .assign(ben.deviceID))))

        // The refresh that showed a turn: the display's last present when the ok (sent once
        // shown) arrives; a share picture presented in between (an ok slower than a refresh)
        // would count against us, never for us.
        guard let display = h.service.output as? VirtualDisplay else { throw Fixtures.ToolError(description: "the bench room runs on the virtual display") }
        func measure(_ seconds: Double) throws -> (pings: [Double], turns: [Double], shown: [Double]) {
            var pings: [Double] = [], turns: [Double] = [], shown: [Double] = []
            let end = MonotonicClock.now() + seconds
            var page = 1, nonce: UInt32 = 1
            while MonotonicClock.now() < end {
                let t0 = MonotonicClock.now()
                _ = try mod.request(.ping(nonce: nonce))
                pings.append(MonotonicClock.now() - t0)
                nonce += 1
                page = page == 1 ? 2 : 1
                let t1 = MonotonicClock.now()
                try ana.control(.goto(page: UInt32(page)))
                turns.append(MonotonicClock.now() - t1)
                shown.append(display.lastPresentTime - t1)
            }
            return (pings, turns, shown)
        }
        let quiet = try measure(10)
        _ = try ben.beginShare(ShareConfig(codec: .h264, width: 1920, height: 1080, frameRate: 30, bitrate: 20_000_000))
        let streaming = Thread {
            let start = MonotonicClock.now()
            for (i, f) in frames.enumerated() {
                MonotonicClock.sleep(until: start + Double(i) / 30)
                _ = ben.sendShareFrame(ShareFrame(sequence: UInt32(i), timestamp: UInt64(MonotonicClock.now() * 1e6), key: f.key, data: f.bytes), wait: 0.03)
            }
        }
        streaming.start()
        let busy = try measure(9)
        let bytes = frames.reduce(0) { $0 + $1.bytes.count }
        print("the room while a 1080p30 share streams into pane 1 (\(bytes * 8 / 10 / 1000) kbit/s, TLS), Ana turning pages in pane 0:")
        print(
            "  ping        quiet p50 \(ms(percentile(quiet.pings, 0.5))) p99 \(ms(percentile(quiet.pings, 0.99)))   sharing p50 \(ms(percentile(busy.pings, 0.5))) p99 \(ms(percentile(busy.pings, 0.99)))"
        )
        print(
            "  page turn   quiet p50 \(ms(percentile(quiet.turns, 0.5))) p99 \(ms(percentile(quiet.turns, 0.99)))   sharing p50 \(ms(percentile(busy.turns, 0.5))) p99 \(ms(percentile(busy.turns, 0.99)))  (command → control-ok, sent once shown)"
        )
        print(
            "  page turn   quiet p50 \(ms(percentile(quiet.shown, 0.5))) p99 \(ms(percentile(quiet.shown, 0.99)))   sharing p50 \(ms(percentile(busy.shown, 0.5))) p99 \(ms(percentile(busy.shown, 0.99)))  (command → the refresh that showed it; goal p99 <= one refresh + 2 ms = 18.67 ms)"
        )
        let s = try ben.state().shares?.first
        print("  share: \(s?.status.rawValue ?? "ended"), acks: \(ben.shareEvents().count) events unread")
    }
}
