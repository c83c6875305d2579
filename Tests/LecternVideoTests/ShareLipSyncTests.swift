import Foundation
import LecternModel
import LecternSystem
import LecternShare
import LecternSound
import LecternTestSupport
import LecternVideo
import XCTest

/// A live share's picture kept with its sound (docs/protocol.md §29.9), with the real parts:
/// a Matroska of H.264 and Opus made by ffmpeg, read as `lectern share` reads it, sent at
/// its pace into a `ShareSource` (FFmpeg decoding in this process), its sound played by a
/// `ShareSoundTrack` on ALSA's `file` device, and the display loop's calls made at 60 Hz:
/// each picture taken is heard within 40 ms of the refresh that shows it.
final class ShareLipSyncTests: XCTestCase {
    func testEachPictureIsShownWithin40msOfItsSound() throws {
        let dir = Fixtures.tempDir("share-sync")
        let mkv = dir + "/av.mkv"
        let made = try Fixtures.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000",
                "-t", "4", "-c:v", "libx264", "-bf", "0", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "libopus", "-frame_duration", "20", mkv,
            ])
        XCTAssertEqual(made.status, 0, made.err)
        let reader = try ShareStreamReader(path: mkv)
        XCTAssertEqual(reader.soundChannels, 1)
        let track = ShareSoundTrack(sink: try ALSASink(name: "file:FILE=\(dir)/out.raw,FORMAT=raw", latency: 0.06), level: SoundLevel())
        let source = ShareSource(
            codec: .h264, limits: ShareFlow.Limits(maxQueuedBytes: 4 << 20, maxQueuedFrames: 8, bitrate: 4_000_000, frameRate: 30),
            maxSide: 1920, maxPixels: 1920 * 1200, stallSeconds: 2, background: .black, width: 640, height: 360, reports: .init(),
            sound: { _ in track })
        source.start()
        defer { source.stop() }
        // The sender: each packet when it is due, stamped with that time (one clock for both).
        let t0 = MonotonicClock.now() + 0.1
        var items: [ShareStreamReader.Item] = []
        while let i = try reader.nextItem() { items.append(i) }
        let sent = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let all = items
        Thread.detachNewThread {
            var seq: UInt32 = 0
            for item in all {
                switch item {
                case .picture(let p):
                    let due = t0 + (p.time ?? 0)
                    MonotonicClock.sleep(until: due)   // the sender's pace, not a wait for the source
                    source.push(sequence: seq, key: p.key, timestamp: UInt64(due * 1e6), data: p.bytes, now: MonotonicClock.now())
                    seq += 1
                case .sound(let s):
                    let due = t0 + (s.time ?? 0)
                    MonotonicClock.sleep(until: due)
                    source.pushAudio(timestamp: UInt64(due * 1e6), channels: 1, data: s.bytes)
                }
            }
            sent.signal()
        }
        // The display loop: at each 60 Hz refresh, the picture due (if any) and its capture time.
        var shown: [(refresh: Double, capture: Double)] = []
        let period = 1.0 / 60
        var refresh = MonotonicClock.now() + period
        while sent.wait(timeout: .now()) == .timedOut {
            MonotonicClock.sleep(until: refresh - period)   // the refresh before: the loop asks a period ahead
            if source.frame(forRefreshAt: refresh, refreshPeriod: period) != nil, let c = source.shownCapture { shown.append((refresh, c)) }
            refresh += period
        }
        // Steady state: from 1 s in (the sound's jitter buffer and offset settled).
        let steady = shown.filter { $0.capture >= t0 + 1 }
        XCTAssertGreaterThan(steady.count, 60, "pictures shown with their sound: \(shown.count)")
        let errors = steady.compactMap { s in track.heard(capture: s.capture).map { s.refresh - $0 } }
        let worst = errors.map(abs).max() ?? 1
        print(String(format: "share lip sync: %d pictures, picture − sound p50 %.1f ms, worst %.1f ms", errors.count, (errors.sorted()[errors.count / 2]) * 1000, worst * 1000))
        XCTAssertLessThanOrEqual(worst, 0.040, "every picture within ±40 ms of its sound")
        XCTAssertGreaterThan(FileManager.default.contents(atPath: dir + "/out.raw")?.count ?? 0, 48_000 * 4 * 2, "the sound was played")
    }
}
