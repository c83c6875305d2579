import Foundation
import LecternClient
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// The room's cross-fade (control signal 0x10, docs/protocol.md §21) over real sockets, and
/// its config key.
final class TransitionsOverTCPTests: XCTestCase {
    func testTheDriverChoosesTheCrossFadeAndEveryoneSeesIt() throws {
        let h = try ServiceHarness(floor: .open)
        let ana = try h.presenter("Ana"), bo = try h.presenter("Bo")
        XCTAssertEqual(try ana.state().transitions.fallbackFadeMs, 0, "off by default")
        XCTAssertNil(h.service.stage.fallbackTransition)
        XCTAssertServerError(.noFloor, try bo.control(.transitions(fadeMs: 300)), "only whoever drives the screen")
        _ = try ana.requestFloor()
        XCTAssertServerError(.transitionOutOfRange, try ana.control(.transitions(fadeMs: 10)))
        XCTAssertServerError(.transitionOutOfRange, try ana.control(.transitions(fadeMs: 2001)))
        try ana.control(.transitions(fadeMs: 400))
        _ = try bo.waitForState { $0.transitions.fallbackFadeMs == 400 }
        XCTAssertEqual(h.service.stage.fallbackTransition, .fade(0.4))
        try ana.control(.transitions(fadeMs: 0))
        _ = try bo.waitForState { $0.transitions.fallbackFadeMs == 0 }
        XCTAssertNil(h.service.stage.fallbackTransition)
    }

    /// A looping clip holds the stage for as long as it plays; choosing the cross-fade
    /// meanwhile is answered at once (the room's loop never waits for the stage: without
    /// that the answer, and the clip-stop after it, would wait for a clip that never ends).
    func testTheCrossFadeChosenDuringALoopingClipDoesntHoldTheRoom() throws {
        let h = try ServiceHarness(floor: .open)
        let ana = try h.presenter("Ana")
        _ = try ana.requestFloor()
        let clip = try ana.upload(path: try Fixtures.clip(in: Fixtures.tempDir("fadeclip"), seconds: 3))
        _ = try ana.request(.clipPlay(content: clip.content, loop: true))
        _ = try ana.waitForState { $0.screen.clip?.state == .playing }
        try ana.control(.transitions(fadeMs: 300))
        _ = try ana.request(.clipStop)
        _ = try ana.waitForState { $0.screen.clip == nil && $0.transitions.fallbackFadeMs == 300 }
        XCTAssertEqual(h.service.stage.fallbackTransition, .fade(0.3))
    }

    func testTheConfigSetsTheRoomsCrossFade() throws {
        let h = try ServiceHarness(floor: .open) { $0.crossfadeMs = 250 }
        let ana = try h.presenter("Ana")
        XCTAssertEqual(try ana.state().transitions.fallbackFadeMs, 250)
        XCTAssertEqual(h.service.stage.fallbackTransition, .fade(0.25))
        let ok = ConfigFile.parse("[display]\ncrossfade_ms = 300\n")
        XCTAssertEqual(ok.config.crossfadeMs, 300)
        let bad = ConfigFile.parse("[display]\ncrossfade_ms = 20\n")
        XCTAssertTrue(bad.problems.contains { $0.message.contains("'display.crossfade_ms' must be 0 (no cross-fade) or from 50 to 2000") }, "\(bad.problems)")
    }
}
