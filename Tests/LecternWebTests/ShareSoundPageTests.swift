import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternTestSupport
import XCTest

/// The sound of a shared tab (docs/protocol.md §29.9) in real headless Chromium against a
/// real service: the captured tab is a canvas with a 1 kHz tone (WebAudio), encoded by the
/// page with WebCodecs' AudioEncoder (Opus), decoded by FFmpeg in the share's decoder
/// process and played through the ALSA output clips use — the `file` plugin here, so what
/// the device was given is read back — at the room's volume.
final class ShareSoundPageTests: XCTestCase {
    /// The canvas of `SharePageTests` and a 1 kHz sine at a quarter of full scale, as the
    /// "tab" getDisplayMedia hands out.
    static let canvasWithTone =
        SharePageTests.canvas + """
            const ac = new AudioContext({ sampleRate: 48000 });
            const osc = ac.createOscillator(); osc.frequency.value = 1000;
            const level = ac.createGain(); level.gain.value = 0.25;
            const dst = ac.createMediaStreamDestination();
            osc.connect(level).connect(dst); osc.start();
            const tab = new MediaStream([stream.getVideoTracks()[0], dst.stream.getAudioTracks()[0]]);
            navigator.mediaDevices.getDisplayMedia = async () => tab;
            """

    static func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? 0 }

    /// The left channel of 0.5 s of what the device was given after `from` bytes: its peak
    /// and its zero crossings a second.
    static func listen(_ raw: String, after from: Int) throws -> (peak: Int, crossings: Int) {
        let want = from + 24_000 * 4
        try eventually("0.5 s more sound", timeout: 10) { size(raw) >= want }
        let s = Fixtures.rawSamples(raw, from: from / 4)
        let left = stride(from: 0, to: min(s.count, 48_000), by: 2).map { Int(s[$0]) }
        var crossings = 0
        for i in 1..<left.count where (left[i - 1] < 0) != (left[i] < 0) { crossings += 1 }
        return (left.map(abs).max() ?? 0, crossings * 2)
    }

    func size(_ path: String) -> Int { Self.size(path) }
    func listen(_ raw: String, after from: Int) throws -> (peak: Int, crossings: Int) { try Self.listen(raw, after: from) }

    func testATabsSoundPlaysOnTheClipsOutputAtTheRoomsVolume() throws {
        let dir = Fixtures.tempDir("share-sound")
        let raw = dir + "/played.raw"
        let h = try ServiceHarness.web(floor: .open) { $0.audioDevice = AudioDevice("file:FILE=\(raw),FORMAT=raw") }
        let mod = try h.moderator("Chair")
        let ana = try h.browser(width: 1366, height: 768, arguments: ["--autoplay-policy=no-user-gesture-required"])
        try h.joinAndWait(ana, name: "Ana")
        try ana.execute(Self.canvasWithTone)
        try ana.click("#share-screen")
        try ana.poll("live", timeout: 20) { try h.snapshot().shares?.first?.status == .live }
        try ana.poll("sound sent", timeout: 10) { (try ana.execute("const s = window.Lectern.sharer(); return s && s.sound ? s.sound.sent : 0") as? Int ?? 0) > 20 }
        try eventually("sound on the device", timeout: 10, interval: 0.1) { self.size(raw) > 48_000 * 4 / 2 }
        // The tone: 1 kHz (2000 zero crossings a second), a quarter of full scale (Opus is lossy).
        let full = try listen(raw, after: size(raw))
        XCTAssertEqual(Double(full.crossings), 2000, accuracy: 60, "1 kHz")
        XCTAssertEqual(Double(full.peak), 8192, accuracy: 1200, "the tone's level")
        // The room's volume applies: 50 % is a quarter (square law).
        _ = try mod.request(.soundSet(SoundSetting(level: 50)))
        _ = try mod.waitForState { $0.sound.level == 50 }
        let half = try listen(raw, after: size(raw) + 48_000 * 4 / 2)
        XCTAssertEqual(Double(half.peak) / Double(full.peak), 0.25, accuracy: 0.05, "volume 50: \(half.peak) of \(full.peak)")
        // Stop: no more sound.
        try ana.click("#share-stop")
        try ana.poll("stopped") { try h.snapshot().shares == nil }
        let end = size(raw)
        MonotonicClock.sleep(until: MonotonicClock.now() + 0.5)   // what a silent device would have been given meanwhile: nothing
        XCTAssertLessThan(size(raw) - end, 48_000 * 4 / 5, "the sound stopped with the share")
    }
}
