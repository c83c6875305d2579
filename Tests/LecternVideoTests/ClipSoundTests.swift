import Foundation
import LecternModel
import LecternSystem
import LecternSound
import LecternTestSupport
import LecternVideo
import XCTest

/// Clips' sound through real ALSA (the `file` plugin: what the device was given lands in a
/// raw file, paced in real time by `ALSASink`), decoded by FFmpeg from AAC made by the
/// ffmpeg CLI, with the picture taken by a display loop on the real clock.
final class ClipSoundTests: XCTestCase {
    static let rate = Double(AudioDecoder.sampleRate)

    static func clip(in dir: String, seconds: Double, flash: Double, tone: String, name: String) throws -> String {
        try Fixtures.toneClip(in: dir, seconds: seconds, tone: tone, flash: flash, name: name)
    }

    /// The captured sound: interleaved S16 stereo.
    static func samples(_ path: String) -> [Int16] {
        guard let d = FileManager.default.contents(atPath: path) else { return [] }
        return d.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// The first frame (stereo pair index) from `from` where the tone is on.
    static func onset(_ s: [Int16], from: Int = 0) -> Int? {
        var i = from * 2
        while i < s.count {
            if abs(Int(s[i])) > 1500 { return i / 2 }
            i += 2
        }
        return nil
    }

    func track(_ path: String, device: String) throws -> SoundTrack {
        let (audio, whyNot) = AudioDecoder.open(path: path)
        let decoder = try XCTUnwrap(audio, "no sound decoded: \(whyNot ?? "")")
        let sink = try ALSASink(name: device)
        return SoundTrack(decoder: decoder, sink: sink, level: SoundLevel())
    }

    /// Pause: nothing more reaches the device until resume. Seek (while paused): what comes
    /// next is the sound at the new place (the tone), not where it stopped (silence). The
    /// picture is taken by a display loop on the real clock (`LiveDriver`); the tone and the
    /// flash at the same place in time: ClipSourceTimingTests.
    func testPauseStopsTheSoundAndSeekMovesIt() throws {
        let dir = Fixtures.tempDir("sound")
        let path = try Self.clip(in: dir, seconds: 8, flash: 7, tone: "gte(t,5)", name: "seek.mp4")
        let raw = dir + "/played.raw"
        let track = try self.track(path, device: "file:FILE=\(raw),FORMAT=raw")
        let control = PlaybackControl()
        let live = LiveDriver(try PaneDriver(path, width: 640, height: 360, control: control, sound: track, t0: MonotonicClock.now() + 0.1))
        defer { live.stop() }
        func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: raw)[.size]) as? NSNumber)?.intValue ?? 0 }
        try eventually("a second of sound played", timeout: 10) { size() >= Int(Self.rate) * 4 }
        control.pause()
        try eventually("paused", timeout: 5) { control.status.state == .paused }
        // Settled: whatever was in flight is through; from here the file must not grow.
        // (ALSA's file plugin writes out what was queued when the pause drops it.)
        var settled = -1
        try eventually("the sound to stop", timeout: 3, interval: 0.2) {
            defer { settled = size() }
            return size() == settled
        }
        let pausedAt = MonotonicClock.now()
        while MonotonicClock.now() - pausedAt < 0.5 {
            XCTAssertEqual(size(), settled, "sound kept coming while paused")
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
        }
        XCTAssertNil(Self.onset(Self.samples(raw)), "the tone came before the seek")
        control.seek(to: 5.5)
        control.resume()
        try eventually("sound again after the seek", timeout: 10) { size() >= settled + Int(Self.rate) * 4 / 2 }
        let s = Self.samples(raw)
        let first = try XCTUnwrap(Self.onset(s, from: settled / 4), "no tone after seeking into it")
        XCTAssertLessThan(Double(first - settled / 4) / Self.rate, 0.03, "after the seek the sound went on from where it was")
        control.stop()
        try eventually("onEnd", timeout: 10) { live.read { $0.ended } }
        XCTAssertEqual(live.read { $0.ends.results.map(\.end) }, [.stopped])
    }

    /// A clip without sound has none to open (it plays silent: ClipSourcePlayTests); no sound
    /// card means no device; a device that isn't there is an error to log, not to show.
    func testNoSoundNoCardAndAMissingDeviceArePlainAnswers() throws {
        let dir = Fixtures.tempDir("sound")
        let silent = try Fixtures.clip(in: dir, seconds: 1)
        let (decoder, whyNot) = AudioDecoder.open(path: silent)
        XCTAssertNil(decoder)
        XCTAssertEqual(whyNot, "it has no sound")
        XCTAssertNil(SoundDevice.resolve(.auto, cards: "--- no soundcards ---\n").pcm)
        XCTAssertNil(SoundDevice.resolve(.off, cards: "").pcm)
        let pi = " 0 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0\n                      vc4-hdmi-0\n 1 [vc4hdmi1       ]: vc4-hdmi - vc4-hdmi-1\n"
        XCTAssertEqual(SoundDevice.resolve(.auto, cards: pi).pcm, "plughw:CARD=vc4hdmi0,DEV=0")
        XCTAssertEqual(SoundDevice.resolve(.pcm("hdmi:CARD=vc4hdmi1,DEV=0"), cards: pi).pcm, "hdmi:CARD=vc4hdmi1,DEV=0")
        XCTAssertThrowsError(try ALSASink(name: "hw:CARD=NoSuchCard,DEV=0"))
    }
}
