import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// Next during a clip started from the idle screen (§11): no slides under it, so the clip
/// plays on and the presenter is told why, rather than the wall going idle.
final class ClipPageTurnTests: XCTestCase {
    func isRed(_ c: RGB) -> Bool { c.r > 200 && c.g < 70 && c.b < 70 }

    func testNextDuringAClipFromTheIdleScreenLeavesItPlaying() throws {
        let h = try ServiceHarness(floor: .open)
        let a = try h.presenter("A")
        _ = try a.requestFloor()
        let dir = Fixtures.tempDir("clips")
        let clip = try a.upload(path: try Fixtures.clip(in: dir, seconds: 3))
        // Looping, so that it is still playing after the page turn however slow the machine.
        _ = try a.request(.clipPlay(content: clip.content, loop: true))
        _ = try a.waitForState(timeout: 15) { $0.screen.clip?.state == .playing }
        try eventually("the red clip on the wall", timeout: 15, interval: 0.05) { self.isRed(try PNG.decode(a.screenshot()).pixel(x: 960, y: 540)) }

        XCTAssertThrowsError(try a.control(.next)) { error in
            let e = (error as? LecternConnection.ClientError)?.lecternError
            XCTAssertEqual(e?.code, .nothingOnScreen)
            XCTAssertEqual(
                e?.message,
                "A clip is playing with no slides under it: Next has no page to turn to, so the clip plays on. Stop the clip to go back to the idle screen.")
        }
        let s = try a.state()
        XCTAssertEqual(s.screen.content?.kind, .clip, "the clip is still on screen")
        XCTAssertEqual(s.screen.clip?.state, .playing)
        XCTAssertTrue(isRed(try PNG.decode(a.screenshot()).pixel(x: 960, y: 540)), "the wall still shows the clip")

        // Stop goes back to the idle screen, as said.
        _ = try a.request(.clipStop)
        XCTAssertNil(try a.waitForState { $0.screen.clip == nil }.screen.content)
    }
}
