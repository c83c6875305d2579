import Foundation
import LecternModel
import LecternProtocol
import LecternService
import LecternTestSupport
import XCTest

/// The volume control in the clip card (Web/sound-control.js), in real Chromium against
/// the real service: the slider and Mute send sound-set, the page shows what the state says.
final class SoundControlPageTests: XCTestCase {
    func testTheSliderAndMuteSetTheRoomsVolume() throws {
        let raw = Fixtures.tempDir("web-sound") + "/played.raw"
        let device = "file:FILE=\(raw),FORMAT=raw"
        let h = try ServiceHarness.web(floor: .open) { $0.audioDevice = AudioDevice(device) }
        let clip = try Fixtures.toneClip(in: h.dir, seconds: 20, name: "talk.mp4")
        let b = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(b, name: "Cleo")
        try b.click("#floor-request")
        try b.poll("the floor") { try b.text("#floor-status") == "You have the floor." }
        try b.type(try XCTUnwrap(b.find("#file-input")), clip)
        try b.click(try b.wait(for: "#file-list button[data-action=play]", timeout: 30))
        try b.poll("the clip playing") { try h.snapshot().screen.clip?.state == .playing }
        XCTAssertTrue(try b.displayed(XCTUnwrap(b.find("#sound-volume"))))
        try b.poll("the level shown") { try b.text("#sound-level") == "100" }

        try b.execute("const r = document.getElementById('sound-volume'); r.value = '30'; r.dispatchEvent(new Event('change'))")
        try b.poll("volume 30 on the service") { try h.snapshot().sound.level == 30 }
        try b.poll("volume 30 in the page") { try b.text("#sound-level") == "30" }

        try b.click("#sound-mute")
        try b.poll("muted on the service") { try h.snapshot().sound.muted }
        try b.poll("the button says Unmute") { try b.text("#sound-mute") == "Unmute" }
        // What reaches the device after the mute (and the ~0.1 s queued before it) is silence.
        func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: raw)[.size]) as? NSNumber)?.intValue ?? 0 }
        let from = size() + 48_000 * 4 / 5
        try eventually("0.3 s of sound after the mute", timeout: 10) { size() >= from + 48_000 * 4 * 3 / 10 }
        XCTAssertEqual(Fixtures.rawSamples(raw, from: from / 4).prefix(48_000 * 2 * 3 / 10).map { abs(Int($0)) }.max(), 0)

        try b.click("#sound-mute")
        try b.poll("sound on again") { try h.snapshot().sound.muted == false }
        try b.click("#clip-stop")
        try b.poll("the clip gone") { try h.snapshot().screen.clip == nil }
    }
}
