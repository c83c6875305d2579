import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternPhotos
import LecternService
import LecternTestSupport

/// `LECTERN_BENCH_ONLY=photos` (issue 29): a 12-megapixel JPEG from a phone, uploaded to the
/// service (TLS on, as shipped) and shown: upload → on the wall, against vipsthumbnail making
/// the same photo the output's size (1920×1080) as a process of its own, round by round
/// (each round a new photo: the service keeps what it has). Then memory: the service's peak
/// while converting, and the decoding child's peak for 12 and 48 megapixels.
func runPhotoBenchmarks(rounds: Int) throws {
    let n = max(10, rounds * 4)
    let dir = Fixtures.tempDir("bench-photos")
    // n different 12 MP photos (4000 × 3000, a phone's 4:3), each a frame of ffmpeg's moving
    // pattern with a sensor's grain (≈ 5 MB each, as a phone's JPEG).
    let made = try Fixtures.run(
        "ffmpeg",
        [
            "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=4000x3000:rate=1", "-vf", "noise=alls=12:allf=t", "-frames:v", "\(n)",
            "-q:v", "2", dir + "/IMG_%04d.jpg",
        ])
    precondition(made.status == 0, made.err)
    let photos = (1...n).map { String(format: "\(dir)/IMG_%04d.jpg", $0) }
    let size = (try? FileManager.default.attributesOfItem(atPath: photos[0])[.size] as? NSNumber)?.intValue ?? 0

    let room = try BenchRoom(dir: dir, presenterName: "Phone")
    defer { room.service.stop() }
    var ours: [Double] = [], uploads: [Double] = [], shows: [Double] = [], theirs: [Double] = []
    var servicePeak = 0
    for photo in photos {
        PeakResident.reset()
        let before = PeakResident.current
        let t0 = MonotonicClock.now()
        let stored = try room.presenter.upload(path: photo)
        let t1 = MonotonicClock.now()
        try room.presenter.present(stored.content)
        let t2 = MonotonicClock.now()
        servicePeak = max(servicePeak, PeakResident.bytes - before)
        ours.append(t2 - t0)
        uploads.append(t1 - t0)
        shows.append(t2 - t1)

        let t3 = MonotonicClock.now()
        let r = try Fixtures.run("vipsthumbnail", [photo, "-s", "1920x1080", "-o", dir + "/thumb.jpg"])
        precondition(r.status == 0, r.err)
        theirs.append(MonotonicClock.now() - t3)
    }
    print("photo, 12 MP JPEG (4000x3000, \(size / 1000) kB) upload -> on the wall at 1920x1080, \(n) photos over TLS:")
    print("  lectern        p50 \(ms(percentile(ours, 0.5)))  p99 \(ms(percentile(ours, 0.99)))")
    print("    upload + convert  p50 \(ms(percentile(uploads, 0.5)))  p99 \(ms(percentile(uploads, 0.99)))")
    print("    present (render, show)  p50 \(ms(percentile(shows, 0.5)))  p99 \(ms(percentile(shows, 0.99)))")
    print("  vipsthumbnail  p50 \(ms(percentile(theirs, 0.5)))  p99 \(ms(percentile(theirs, 0.99))) (decode and shrink to 1920x1080, one process)")
    print(String(format: "  ratio lectern/vipsthumbnail p50 = %.2f", percentile(ours, 0.5) / percentile(theirs, 0.5)))
    print("  the service's peak resident memory grew by \(servicePeak >> 20) MB at most while a photo was uploaded, converted and shown")

    // The child that decodes, alone: its peak for a 12 MP and a 48 MP JPEG.
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    let lecternd = (exe as NSString).deletingLastPathComponent + "/lecternd"
    let big = try Fixtures.bigPhoto(width: 8000, height: 6000, in: dir)
    for (what, file) in [("12 MP", photos[0]), ("48 MP", big)] {
        let t = MonotonicClock.now()
        let m = try PhotoDeck.make([file], into: dir + "/child.pdf", executable: lecternd)
        print(
            "  the decoding child, \(what) JPEG: \(ms(MonotonicClock.now() - t)), peak resident \(m.childPeakBytes >> 20) MB (budget \(PhotoLimits().memoryMB) MB beyond its libraries)"
        )
    }
}
