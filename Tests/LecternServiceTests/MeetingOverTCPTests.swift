import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// The wire protocol against a real service over real sockets (virtual display).
final class MeetingOverTCPTests: XCTestCase {
    func deck(_ pages: Int = 5) throws -> String { try Fixtures.numberedDeck(count: pages, in: Fixtures.tempDir("deck")) }

    func testAModeratedMeeting() throws {
        let h = try ServiceHarness(floor: .moderated)
        let mod = try h.moderator()
        let alice = try h.presenter("Alice"), bob = try h.presenter("Bob")
        XCTAssertEqual(try alice.requestFloor(), .queued(position: 1))
        XCTAssertEqual(try bob.requestFloor(), .queued(position: 2))
        let queued = try mod.waitForState { $0.floor.queue == [alice.deviceID, bob.deviceID] }
        XCTAssertNil(queued.floor.holder)

        // Nobody drives before a grant; uploads are fine before holding the floor.
        let pdf = try deck()
        let stored = try alice.upload(path: pdf)
        XCTAssertEqual(stored.pageCount, 5)
        XCTAssertServerError(.noFloor, try alice.present(stored.content))

        try mod.moderate(.grant, target: alice.deviceID)
        var grantedBy: DeviceID?
        while let m = alice.nextEvent(timeout: 5) { if case .floorGranted(_, let by) = m { grantedBy = by; break } }
        XCTAssertEqual(grantedBy, mod.deviceID, "alice was not told")
        try alice.present(stored.content)
        try alice.control(.next)
        try alice.control(.goto(page: 4))
        let s = try bob.waitForState { $0.screen.page == 4 }
        XCTAssertEqual(s.screen.pageCount, 5)
        XCTAssertEqual(s.screen.content?.id, stored.content)
        XCTAssertEqual(s.floor.holder, alice.deviceID)
        XCTAssertEqual(s.floor.queue, [bob.deviceID])

        // The screenshot is exactly the pipeline's frame of page 4.
        let shot = try PNG.decode(bob.screenshot())
        XCTAssertEqual(PixelCompare.differingPixels(shot, try h.expectedFrame(pdf: pdf, page: 4)), 0, "pixels differ")

        // Bob can't drive; he can't present Alice's upload either, even with the floor.
        XCTAssertServerError(.floorTaken, try bob.control(.next))
        XCTAssertServerError(.pageOutOfRange, try alice.control(.goto(page: 300)))
        XCTAssertEqual(try alice.state().screen.page, 4)

        // The moderator drives at any time.
        try mod.control(.prev)
        XCTAssertEqual(try mod.waitForState { $0.screen.page == 3 }.screen.page, 3)

        // Blank white, then unblank.
        try alice.control(.blank(white: true))
        let white = try PNG.decode(mod.screenshot())
        XCTAssertTrue(white.isUniform(white.bounds, .white))
        try alice.control(.unblank)
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(mod.screenshot()), try h.expectedFrame(pdf: pdf, page: 3)), 0, "pixels differ")

        // Withdraw: Alice is told, the screen goes back to idle.
        try mod.moderate(.withdraw, target: alice.deviceID)
        var told = false
        while let m = alice.nextEvent(timeout: 5) { if case .floorWithdrawn = m { told = true; break } }
        XCTAssertTrue(told)
        let idle = try mod.waitForState { $0.floor.holder == nil && $0.screen.content == nil }
        XCTAssertEqual(idle.screen.page, 0)

        // Grant Bob, who then can't present Alice's file; kick him.
        try mod.moderate(.grant, target: bob.deviceID)
        XCTAssertServerError(.notYourContent, try bob.present(stored.content))
        try mod.moderate(.kick, target: bob.deviceID)
        var kicked: LecternError?
        while let m = bob.nextEvent(timeout: 5) { if case .error(let e) = m { kicked = e; break } }
        XCTAssertEqual(kicked?.code, .kicked)
        let after = try mod.waitForState { s in !s.devices.contains { $0.id == bob.deviceID } }
        XCTAssertNil(after.floor.holder)
        XCTAssertServerError(.moderatorOnly, try alice.moderate(.kick, target: mod.deviceID))
    }

    func testOpenModeNewestRequestWins() throws {
        let h = try ServiceHarness(floor: .open)
        let a = try h.presenter("A"), b = try h.presenter("B")
        XCTAssertEqual(try a.requestFloor(), .holder)
        let pdf = try deck(3)
        try a.present(try a.upload(path: pdf).content)
        XCTAssertEqual(try b.requestFloor(), .holder)
        var lost = false
        while let m = a.nextEvent(timeout: 5) { if case .floorWithdrawn = m { lost = true; break } }
        XCTAssertTrue(lost, "the previous holder was not told")
        // The new holder must not inherit the old holder's deck: the screen goes idle.
        let s = try b.waitForState { $0.floor.holder == b.deviceID && $0.screen.content == nil }
        XCTAssertEqual(s.screen.page, 0)
        XCTAssertServerError(.floorTaken, try a.control(.next))
    }

    func testDoNotDisturbRefusesRequestsPolitely() throws {
        let h = try ServiceHarness(floor: .moderated)
        let mod = try h.moderator(), a = try h.presenter("A")
        try mod.moderate(.dndOn, target: 0)
        XCTAssertServerError(.doNotDisturb, try a.requestFloor())
        try mod.moderate(.dndOff, target: 0)
        XCTAssertEqual(try a.requestFloor(), .queued(position: 1))
        try mod.moderate(.reject, target: a.deviceID)
        XCTAssertEqual(try mod.waitForState { $0.floor.queue.isEmpty }.floor.queue, [])
    }

    func testHandOverAndTakeBack() throws {
        let h = try ServiceHarness(floor: .open)
        let a = try h.presenter("A"), b = try h.presenter("B")
        _ = try a.requestFloor()
        try a.control(.handOver(to: b.deviceID))
        let pdf = try deck(3)
        let id = try b.upload(path: pdf).content
        try b.present(id)
        try b.control(.next)
        XCTAssertServerError(.handedOver, try a.control(.next))
        try a.control(.takeBack)
        let s = try a.state()   // requests are handled in order: this state is after the take-back
        XCTAssertNil(s.floor.delegate)
        XCTAssertEqual(s.floor.holder, a.deviceID)
        XCTAssertServerError(.floorTaken, try b.control(.next))
    }
}
