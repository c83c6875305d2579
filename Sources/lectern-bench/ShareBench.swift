import Dispatch
import Foundation
import LecternClient
import LecternCore
import LecternProtocol
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

    static func decode() throws {
        let dir = Fixtures.tempDir("share-bench")
        let path = try Fixtures.annexB(in: dir, width: 1920, height: 1080, frames: 300, fps: 30, color: nil, keyEvery: 60, name: "s.h264")
        let frames = try units(path)
        let acked = DispatchSemaphore(value: 0)
        var r = ShareSource.Reports()
        r.ack = { _, _, _, _ in acked.signal() }
        let source = ShareSource(
            codec: .h264, limits: ShareFlow.Limits(maxQueuedBytes: 64 << 20, maxQueuedFrames: 1000, bitrate: 20_000_000, frameRate: 60),
            maxSide: 1920, maxPixels: 1920 * 1200, stallSeconds: 10, background: .black, width: 1920, height: 1080, reports: r)
        source.start()
        let cpu0 = cpuSeconds(), t0 = MonotonicClock.now()
        for (i, f) in frames.enumerated() {
            source.push(sequence: UInt32(i), key: f.key, timestamp: UInt64(i) * 33_333, data: f.bytes, now: MonotonicClock.now())
            acked.wait()   // one at a time: the decoder's own pace
        }
        let ours = MonotonicClock.now() - t0, ourCPU = cpuSeconds() - cpu0
        source.stop()
        let c0 = cpuSeconds(children: true), w0 = MonotonicClock.now()
        let ff = try Fixtures.run(
            "ffmpeg", ["-v", "error", "-threads", "1", "-i", path, "-vf", "scale=1920:1080:flags=bicubic,format=bgr0", "-f", "null", "-"])
        precondition(ff.status == 0, ff.err)
        let theirs = MonotonicClock.now() - w0, theirCPU = cpuSeconds(children: true) - c0
        let n = Double(frames.count)
        print("share decode + scale, 1080p30 H.264 (testsrc2, \(frames.count) pictures), one decoder thread:")
        print("  lectern  \(ms(ours / n)) per picture (CPU \(ms(ourCPU / n)); decoded \(source.counts.decoded), dropped \(source.counts.dropped))")
        print("  ffmpeg   \(ms(theirs / n)) per picture (CPU \(ms(theirCPU / n)), -threads 1, scale bicubic to bgr0)")
        print(String(format: "  ratio ffmpeg/lectern per picture = %.3f (goal >= 0.95); service CPU for 1080p30: %.0f %% of one core", theirs / ours, ourCPU / n * 30 * 100))
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

        func measure(_ seconds: Double) throws -> (pings: [Double], turns: [Double]) {
            var pings: [Double] = [], turns: [Double] = []
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
            }
            return (pings, turns)
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
        let s = try ben.state().shares?.first
        print("  share: \(s?.status.rawValue ?? "ended"), acks: \(ben.shareEvents().count) events unread")
    }
}
