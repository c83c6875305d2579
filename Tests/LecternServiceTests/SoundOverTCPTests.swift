import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// §23 against the real service: a clip's sound reaches the ALSA device the config names
/// (the `file` plugin here: what the device was given lands in a file), and sound-set's
/// volume and mute change what reaches it; the state shows them.
final class SoundOverTCPTests: XCTestCase {
    func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? 0 }

    /// The loudest sample among the frames written after the file had `from` bytes, once
    /// `seconds` more have been written.
    func peak(_ raw: String, after from: Int, seconds: Double) throws -> Int {
        let want = from + Int(seconds * 48_000) * 4
        try eventually("\(seconds) s more sound", timeout: 10) { self.size(raw) >= want }
        let s = Fixtures.rawSamples(raw, from: from / 4)
        return s.prefix(Int(seconds * 48_000) * 2).map { abs(Int($0)) }.max() ?? 0
    }

    func testVolumeAndMuteReachTheSoundAndShowInTheState() throws {
        let dir = Fixtures.tempDir("sound-tcp")
        let raw = dir + "/played.raw"
        let device = "file:FILE=\(raw),FORMAT=raw"
        let h = try ServiceHarness(floor: .open) { $0.audioDevice = AudioDevice(device) }
        let a = try h.presenter("A")
        _ = try a.requestFloor()
        let first = try a.state()
        XCTAssertEqual(first.sound, SoundSnapshot(level: 100, muted: false, device: device))

        let clip = try a.upload(path: try Fixtures.toneClip(in: dir, seconds: 4))
        _ = try a.request(.clipPlay(content: clip.content, loop: true))
        // Full volume: the sine at 1/8 of full scale (4096), mono spread to both channels at −3 dB (2896).
        let full = try peak(raw, after: max(size(raw), 48_000 * 4 / 2), seconds: 0.3)
        XCTAssertEqual(Double(full), 2896, accuracy: 150, "full volume")

        _ = try a.request(.soundSet(SoundSetting(level: 50)))
        XCTAssertEqual(try a.waitForState { $0.sound.level == 50 }.sound.muted, false)
        // What was queued before the change (0.1 s) passes first; then a quarter (50 % on a square law).
        let half = try peak(raw, after: size(raw) + 48_000 * 4 / 5, seconds: 0.3)
        XCTAssertEqual(Double(half), 724, accuracy: 60, "volume 50")

        _ = try a.request(.soundSet(SoundSetting(muted: true)))
        XCTAssertEqual(try a.waitForState { $0.sound.muted }.sound.level, 50)
        XCTAssertEqual(try peak(raw, after: size(raw) + 48_000 * 4 / 5, seconds: 0.3), 0, "muted")
        _ = try a.request(.soundSet(SoundSetting(muted: false)))
        XCTAssertEqual(Double(try peak(raw, after: size(raw) + 48_000 * 4 / 5, seconds: 0.3)), 724, accuracy: 60, "unmuted at 50")

        // Refusals: a level past 100; someone who doesn't drive.
        XCTAssertServerError(.volumeOutOfRange, try a.request(.soundSet(SoundSetting(level: 101))))
        let b = try h.presenter("B")
        XCTAssertServerError(.floorTaken, try b.request(.soundSet(SoundSetting(level: 10))))
        XCTAssertEqual(try b.state().sound.level, 50)
        _ = try a.request(.clipStop)
    }

    /// On a machine without a sound card (this one: "auto" finds no HDMI card) the state
    /// says there is no device, and clips play as before (ClipOverTCPTests).
    func testNoSoundCardMeansNoDeviceInTheStateAndTheVolumeStillSets() throws {
        let h = try ServiceHarness(floor: .open) { $0.audioDevice = .auto }
        let a = try h.presenter("A")
        _ = try a.requestFloor()
        let s = try a.state()
        if FileManager.default.fileExists(atPath: "/proc/asound/cards"),
            let cards = try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8), cards.lowercased().contains("hdmi")
        {
            XCTAssertNotNil(s.sound.device)
        } else {
            XCTAssertNil(s.sound.device)
        }
        _ = try a.request(.soundSet(SoundSetting(level: 30, muted: true)))
        let after = try a.waitForState { $0.sound.level == 30 }
        XCTAssertTrue(after.sound.muted)
    }
}
