import Foundation
import LecternModel
import LecternDisplay
import LecternSound
import LecternTestSupport
import LecternVideo
import Synchronization

/// Sound figures (LECTERN_BENCH_ONLY=sound): the A/V offset over a 60 s clip played in real
/// time — a white flash and a 1 kHz beep at every second's half, the beep's onset in what
/// the ALSA device was given (the `file` plugin) against the refresh its flash went on
/// screen, p50/p99 of |offset| — and the CPU time of decoding + resampling a second of
/// sound (AAC 44.1 kHz stereo → S16 48 kHz), against the ffmpeg CLI doing the same.
func runSoundBenchmarks() {
    do { try SoundBench.run() } catch { print("sound benchmarks failed: \(error)") }
}

private enum SoundBench {
    static func run() throws {
        let dir = Fixtures.tempDir("sound-bench")
        let seconds = Double(ProcessInfo.processInfo.environment["LECTERN_BENCH_SOUND_SECONDS"] ?? "") ?? 60
        let path = dir + "/beeps.mp4"
        let r = try Fixtures.run(
            "ffmpeg",
            [
                "-v", "error", "-y",
                "-f", "lavfi", "-i", "color=c=black:s=640x360:r=30:d=\(seconds)",
                "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100:duration=\(seconds)",
                "-vf", "drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='between(mod(t,1),0.5,0.5333)'",
                "-af", "volume=volume=0:enable='not(between(mod(t,1),0.5,0.6))'",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "30", "-c:a", "aac", "-ac", "2", "-b:a", "128k", "-shortest", path,
            ])
        guard r.status == 0 else { throw Fixtures.ToolError(description: "ffmpeg made no clip: \(r.err)") }

        // MARK: A/V offset
        let raw = dir + "/played.raw"
        let sink = try ALSASink(name: "file:FILE=\(raw),FORMAT=raw")
        let (audio, whyNot) = AudioDecoder.open(path: path)
        guard let audio else { throw Fixtures.ToolError(description: "no sound: \(whyNot ?? "")") }
        // The clip over the whole wall as the service plays it: a clip source whose sound sets
        // the pace, the display loop taking its frames (the output notes the flashes).
        let out = Watched(VirtualDisplay(mode: DisplayMode(width: 640, height: 360)))
        let stage = try WallClips.stage(out)
        let decoder = try ClipDecoder(path: path)
        let started = Mutex<Double?>(nil)
        // The first report comes after the first frame, once the sound is going.
        // The sink is the sound thread's from here on: what the playback thread reads is its
        // published start, not the sink.
        let soundStart = sink.start
        let control = PlaybackControl { _ in started.withLock { if $0 == nil { $0 = soundStart.time } } }
        let result = WallClips.playFullScreen(decoder, on: stage, control: control, sound: SoundTrack(decoder: audio, sink: sink, level: SoundLevel()))
        guard let t0 = started.withLock({ $0 }) else { throw Fixtures.ToolError(description: "the sound never started") }
        let samples = Fixtures.rawSamples(raw)
        let onsets = onsetsOfBeeps(samples).map { t0 + Double($0) / Double(AudioDecoder.sampleRate) }
        let flashes = out.flashes()
        var offsets: [Double] = []
        for f in flashes {
            guard let a = onsets.min(by: { abs($0 - f) < abs($1 - f) }), abs(a - f) < 0.4 else { continue }
            offsets.append(abs(f - a))
        }
        print("sound: A/V offset over a \(Int(seconds)) s clip (30 fps on a 60 Hz output, AAC 44.1 kHz → 48 kHz, ALSA file plugin):")
        print("  \(flashes.count) flashes, \(onsets.count) beeps, \(offsets.count) pairs; \(result.status.presented) frames shown, \(result.status.dropped) dropped")
        if !offsets.isEmpty {
            print(
                String(
                    format: "  |offset| p50 %.1f ms, p99 %.1f ms, max %.1f ms (bar: 40 ms)",
                    percentile(offsets, 0.5) * 1000, percentile(offsets, 0.99) * 1000, (offsets.max() ?? 0) * 1000))
        }

        // MARK: CPU per second of sound, ours against the ffmpeg CLI
        var ours: [Double] = [], theirs: [Double] = []
        for _ in 0..<3 {
            let c0 = cpuSeconds(children: false)
            let (d, _) = AudioDecoder.open(path: path)
            guard let d else { break }
            var frames = 0
            while let chunk = d.next() { frames += chunk.frames }
            d.close()
            ours.append((cpuSeconds(children: false) - c0) / (Double(frames) / Double(AudioDecoder.sampleRate)))

            let c1 = cpuSeconds(children: true)
            let f = try Fixtures.run("ffmpeg", ["-v", "error", "-threads", "1", "-i", path, "-vn", "-ar", "48000", "-ac", "2", "-f", "s16le", "-y", "/dev/null"])
            guard f.status == 0 else { throw Fixtures.ToolError(description: "ffmpeg failed: \(f.err)") }
            theirs.append((cpuSeconds(children: true) - c1) / seconds)
        }
        print("sound: CPU to decode + resample one second of sound (AAC 44.1 kHz stereo → S16 48 kHz), median of \(ours.count):")
        print(
            String(
                format: "  lectern %.2f ms, ffmpeg CLI %.2f ms (whole process, demuxing the video packets too); ratio %.2f",
                median(ours) * 1000, median(theirs) * 1000, median(ours) / max(median(theirs), 1e-9)))
    }

    /// Frame indices where a beep starts: the tone after at least 0.2 s of silence.
    static func onsetsOfBeeps(_ s: [Int16]) -> [Int] {
        var out: [Int] = []
        var lastLoud = -Int.max / 2
        var i = 0
        while i + 1 < s.count {
            if abs(Int(s[i])) > 1000 {
                let frame = i / 2
                if frame - lastLoud > AudioDecoder.sampleRate / 5 { out.append(frame) }
                lastLoud = frame
            }
            i += 2
        }
        return out
    }
}

/// The virtual display, noting the refresh at which each flash (a white frame after a dark
/// one) went on screen.
private final class Watched: Output {
    let inner: VirtualDisplay
    // Only the display loop's thread presents; `flashes()` is read after the play.
    private var white = false
    private var times: [Double] = []
    init(_ inner: VirtualDisplay) { self.inner = inner }
    var mode: DisplayMode { inner.mode }
    var name: String { inner.name }
    var presentCount: Int { inner.presentCount }
    func readBack() -> Frame { inner.readBack() }
    func present(draw: (Frame) throws -> Void) throws {
        var now = false
        try inner.present { f in
            try draw(f)
            let c = f.pixel(x: f.width / 2, y: f.height / 2)
            now = c.r > 200 && c.g > 200 && c.b > 200
        }
        if now && !white { times.append(inner.lastPresentTime) }
        white = now
    }
    func flashes() -> [Double] { times }
}
