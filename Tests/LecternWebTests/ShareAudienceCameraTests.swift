import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternRender
import LecternTestSupport
import XCTest

/// Live sharing in real headless Chromium (docs/protocol.md §29.7, §29.8): the audience page
/// shows the share on the wall as pictures, paced (its bytes measured); a phone's "Show
/// camera" shares Chromium's fake camera, the rear one first, and switches.
final class ShareAudienceCameraTests: XCTestCase {
    func testTheAudiencePageShowsTheShareOnTheWallPaced() throws {
        let h = try ServiceHarness.web(floor: .open)
        let laptop = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(laptop, name: "Ana")
        let phone = try XCTUnwrap(h.driver).session(width: 390, height: 844)
        try phone.open(h.url + "viewer.html")
        try phone.type(try phone.wait(for: "#v-passcode"), ServiceHarness.presenterPass)
        try phone.click("#v-join")
        _ = try phone.wait(for: "#audience-view:not([hidden])", timeout: 30)

        try laptop.execute(SharePageTests.canvas)
        try laptop.click("#share-screen")
        try laptop.poll("live", timeout: 20) { try h.snapshot().shares?.first?.status == .live }
        try phone.poll("the share in the slide's place", timeout: 20) {
            try phone.execute("const i = document.getElementById('slide'); return !!i.dataset.share && i.naturalWidth > 0") as? Bool == true
        }
        let note = try phone.text("#slide-note")
        XCTAssertTrue(note.hasPrefix("Ana is sharing"), note)
        // The picture shows the canvas (its dark blue ground, the white block).
        let counts0 = try phone.execute("return window.LecternViewer.shareCounts()") as? [String: Any] ?? [:]
        let t0 = MonotonicClock.now()
        try phone.poll("ten more pictures", timeout: 15) {
            let c = try phone.execute("return window.LecternViewer.shareCounts()") as? [String: Any] ?? [:]
            return (c["pictures"] as? Int ?? 0) >= (counts0["pictures"] as? Int ?? 0) + 10
        }
        let seconds = MonotonicClock.now() - t0
        let counts = try phone.execute("return window.LecternViewer.shareCounts()") as? [String: Any] ?? [:]
        let pictures = (counts["pictures"] as? Int ?? 0) - (counts0["pictures"] as? Int ?? 0)
        let bytes = (counts["bytes"] as? Int ?? 0) - (counts0["bytes"] as? Int ?? 0)
        let rate = Double(pictures) / seconds
        XCTAssertLessThanOrEqual(rate, 2.3, "paced: at most two a second (\(rate))")
        print(
            "audience page following a share: \(String(format: "%.1f", rate)) pictures a second of \(bytes / max(1, pictures)) bytes, \(Int(Double(bytes) / seconds)) bytes a second a viewer (390-pixel phone)"
        )
        let dominant =
            try phone.execute(
                """
                const i = document.getElementById('slide'); const c = document.createElement('canvas'); c.width = 40; c.height = 20;
                const g = c.getContext('2d'); g.drawImage(i, 0, 0, 40, 20); const d = g.getImageData(2, 2, 1, 1).data; return [d[0], d[1], d[2]];
                """) as? [Int] ?? []
        XCTAssertEqual(dominant.count, 3)
        if dominant.count == 3 { XCTAssertTrue(abs(dominant[0] - 0x10) < 30 && abs(dominant[2] - 0x40) < 30, "the canvas's ground: \(dominant)") }
        try shoot(phone, "share-audience", width: 390, height: 844)
        // The share ends: the page goes back to what the wall shows.
        try laptop.click("#share-stop")
        try phone.poll("the share gone from the page") {
            try phone.execute("return !document.getElementById('slide').dataset.share") as? Bool == true
        }
        XCTAssertEqual(try phone.text("#slide-note"), "Nothing is shown yet.")
    }

    func testShowCameraSharesThePhonesRearCameraAndSwitches() throws {
        let h = try ServiceHarness.web(floor: .open)
        let watcher = try h.moderator("Watcher")
        let phone = try h.browser(width: 390, height: 844, arguments: ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"])
        try h.joinAndWait(phone, name: "Ben")
        // What the page asks the camera for, kept.
        try phone.execute(
            """
            window.__asked = [];
            const real = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
            navigator.mediaDevices.getUserMedia = (c) => { window.__asked.push(JSON.stringify(c.video.facingMode)); return real(c); };
            """)
        XCTAssertTrue(try phone.execute("return !document.getElementById('share-camera').hidden") as? Bool == true, "Show camera is offered")
        try phone.click("#share-camera")
        try phone.poll("live", timeout: 20) { try h.snapshot().shares?.first?.status == .live }
        let share = try XCTUnwrap(try h.snapshot().shares?.first)
        XCTAssertEqual(share.source, "camera")
        XCTAssertEqual(try phone.execute("return window.__asked[0]") as? String, #"{"ideal":"environment"}"#, "the rear camera first")
        try assertWallChanges(watcher, "the fake camera on the wall")
        try shoot(phone, "share-camera-phone", width: 390, height: 844)
        // Switch: the front camera, the same share, still moving.
        try phone.poll("Switch camera offered") { try phone.execute("return !document.getElementById('share-switch').hidden") as? Bool == true }
        try phone.click("#share-switch")
        try phone.poll("the front camera asked for") { try phone.execute("return window.__asked[1] || ''") as? String == #"{"ideal":"user"}"# }
        try assertWallChanges(watcher, "after the switch")
        XCTAssertEqual(try h.snapshot().shares?.count, 1)
        XCTAssertEqual(try h.snapshot().shares?.first?.status, .live)
        try phone.click("#share-stop")
        try phone.poll("stopped") { try h.snapshot().shares == nil }
    }

    /// The wall's picture is not the idle screen and changes (Chromium's fake camera moves).
    func assertWallChanges(_ watcher: LecternConnection, _ what: String) throws {
        var first: Frame?
        try eventually("\(what): a picture", timeout: 15, interval: 0.2) {
            let w = try PNG.decode(watcher.screenshot())
            first = w
            return try watcher.state().layout?.panes.first?.share != nil || watcher.state().shares?.first?.status == .live
        }
        try eventually("\(what): moving", timeout: 10, interval: 0.2) {
            let w = try PNG.decode(watcher.screenshot())
            return PixelCompare.differingPixels(w, first!) > 1000
        }
    }
}
