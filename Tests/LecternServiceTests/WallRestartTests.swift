import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
import LecternRoom
import LecternService
import LecternTestSupport
import XCTest

/// Restart restores the layout and every pane (issue 26, must 6; docs/protocol.md §9.7,
/// §14.4): a real `lecternd` (TLS on, as shipped) showing a quad — the floor's deck, Ben's
/// deck in the pane he drives, an empty pane, a page the moderator put up — is killed with SIGKILL
/// and started again on the same data directory: the wall is the same, pixel for pixel, and
/// Ben resumes his pane with his token.
final class WallRestartTests: XCTestCase {
    typealias Setup = ApplianceServiceTests.Setup
    static let pass = "wall-restart-pass"

    func connect(_ port: Int, _ name: String, role: Role = .presenter, token: ResumeToken? = nil) throws -> LecternConnection {
        // lecternd on its defaults: TLS, its self-signed certificate taken as it is.
        let c = try LecternConnection(host: "127.0.0.1", port: port, tls: ClientTLS { _ in true })
        try c.register(name: name, role: role, passcode: role == .moderator ? "appliance-moderator" : Self.pass, resumeToken: token)
        return c
    }

    func testKill9WithAQuadOnTheWallBringsTheSameWallBackAndItsDrivers() throws {
        let s = Setup()
        try s.writeConfig(passcode: Self.pass, room: "Quad Room")
        var (p, port) = try s.start()
        let ann = try connect(port, "Ann")
        let ben = try connect(port, "Ben")
        let mod = try connect(port, "Chair", role: .moderator)
        _ = try ann.requestFloor()
        let a = try ann.upload(path: try Fixtures.numberedDeck(count: 3, in: s.dir, name: "ann.pdf")).content
        try ann.present(a, page: 2)
        let b = try ben.upload(path: try MeetingRecordTests.deck("Beta", pages: 4, in: s.dir)).content
        XCTAssertEqual(try mod.request(.layoutSet(.quad)), .ok)
        XCTAssertEqual(try mod.request(.paneSet(PaneRequest(pane: 1, .assign(ben.deviceID)))), .ok)
        try ben.present(b, page: 3)
        XCTAssertEqual(try mod.request(.paneSet(PaneRequest(pane: 3, .present(content: a, page: 1)))), .ok)
        let annToken = try XCTUnwrap(ann.registration?.resumeToken)
        let benToken = try XCTUnwrap(ben.registration?.resumeToken)
        let before = try mod.waitForState { $0.layout?.panes.map(\.screen.page) == [2, 3, 0, 1] }
        let wall = try PNG.decode(try mod.screenshot())
        XCTAssertEqual([wall.width, wall.height], [1280, 720])
        try eventually("state.json has the quad", timeout: 10) {
            guard let data = FileManager.default.contents(atPath: s.dir + "/data/state.json") else { return false }
            return SavedStateFile.read(data).state?.wall?.panes[3].page == 1
        }

        p.kill(SIGKILL)
        XCTAssertEqual(p.waitForExit(), SIGKILL)
        (p, port) = try s.start()
        defer {
            p.kill(SIGTERM)
            _ = p.waitForExit()
        }
        let log = try p.waitForOutput { $0.contains("first frame on") }
        XCTAssertTrue(log.contains("quad: ") && log.contains("(restored)"), "the wall shown as it was, before the room runs: \(log)")
        let chair = try connect(port, "Chair", role: .moderator)
        let after = try chair.state()
        XCTAssertEqual(after.layout?.kind, .quad)
        XCTAssertEqual(after.layout?.panes.map(\.screen.page), [2, 3, 0, 1])
        XCTAssertEqual(after.layout?.panes.map(\.main), before.layout?.panes.map(\.main))
        XCTAssertEqual(after.layout?.panes[1].driver, ben.deviceID, "Ben's pane waits for him")
        XCTAssertNotNil(after.layout?.panes[1].graceRemainingMs)
        let again = try PNG.decode(try chair.screenshot())
        // The empty pane (2, bottom left) shows the idle card, which names this run's ports: left out.
        let idle = WallLayout.quad.paneRects(width: 1280, height: 720)[2]
        XCTAssertNotEqual(again.pixel(x: idle.x + idle.width / 2, y: idle.y + 4), RGB(255, 255, 255), "pane 2 shows no page")
        for f in [wall, again] { f.fill(idle, .black) }
        XCTAssertEqual(PixelCompare.differingPixels(wall, again), 0, "the same wall, pixel for pixel")

        // Both come back with their tokens: Ann to the floor, Ben to his pane.
        let ann2 = try connect(port, "Ann", token: annToken)
        let ben2 = try connect(port, "Ben", token: benToken)
        XCTAssertEqual(ann2.registration?.resumed, true)
        XCTAssertEqual(ben2.registration?.resumed, true)
        XCTAssertEqual(ben2.deviceID, ben.deviceID)
        try ben2.control(.next)
        try ann2.control(.next)
        let turned = try chair.waitForState { $0.layout?.panes.map(\.screen.page) == [3, 4, 0, 1] }
        XCTAssertEqual(turned.layout?.panes[1].graceRemainingMs, nil, "back: not away")
        let moved = try PNG.decode(try chair.screenshot())
        XCTAssertGreaterThan(PixelCompare.differingPixels(wall, moved), 0, "both panes turned on the wall")
    }

    /// A clip paused in a pane other than the main one (red for 2 s, then blue) at 3 s: after
    /// kill -9 it is paused in the same pane at the same position, the same blue frame on the
    /// wall, not the clip's red start.
    func testKill9WithAClipPausedInAPaneBringsItBackAtItsPosition() throws {
        let s = Setup()
        try s.writeConfig(passcode: Self.pass, room: "Clip Pane Room")
        var (p, port) = try s.start()
        let ann = try connect(port, "Ann")
        let ben = try connect(port, "Ben")
        let mod = try connect(port, "Chair", role: .moderator)
        _ = try ann.requestFloor()
        try ann.present(try ann.upload(path: try Fixtures.numberedDeck(count: 3, in: s.dir, name: "ann.pdf")).content, page: 1)
        XCTAssertEqual(try mod.request(.layoutSet(.split)), .ok)
        XCTAssertEqual(try mod.request(.paneSet(PaneRequest(pane: 1, .assign(ben.deviceID)))), .ok)
        let clip = try ben.upload(path: try Fixtures.redThenBlueClip(in: s.dir)).content
        XCTAssertEqual(try ben.request(.clipPlay(content: clip, loop: false)), .clipPlayOK)
        XCTAssertEqual(try ben.request(.clipPause), .clipPauseOK)
        XCTAssertEqual(try ben.request(.clipSeek(positionMs: 3000)), .clipSeekOK)
        // The 4:3 picture in the right 640×720 pane: 640×480 at y 120.
        let picture = PixelRect(x: 640, y: 120, width: 640, height: 480)
        let centre = (x: picture.x + picture.width / 2, y: picture.y + picture.height / 2)
        var before = Frame(width: 1, height: 1)
        try eventually("the paused clip's blue frame in pane 1", timeout: 20, interval: 0.1) {
            before = try PNG.decode(try mod.screenshot())
            return PaneClipOverTCPTests.near(before.pixel(x: centre.x, y: centre.y), RGB(0, 0, 255))
        }
        try eventually("state.json has the clip paused at 3 s in pane 1", timeout: 10) {
            guard let data = FileManager.default.contents(atPath: s.dir + "/data/state.json") else { return false }
            let c = SavedStateFile.read(data).state?.wall?.panes[1].clip
            return c?.paused == true && abs((c?.position ?? 0) - 3) < 0.1
        }

        p.kill(SIGKILL)
        XCTAssertEqual(p.waitForExit(), SIGKILL)
        (p, port) = try s.start()
        defer {
            p.kill(SIGTERM)
            _ = p.waitForExit()
        }
        let chair = try connect(port, "Chair", role: .moderator)
        let state = try chair.waitForState { $0.layout?.panes[1].screen.clip != nil }
        let c = try XCTUnwrap(state.layout?.panes[1].screen.clip)
        XCTAssertEqual(c.state, .paused)
        XCTAssertEqual(Double(c.positionMs), 3000, accuracy: 100)
        XCTAssertNil(state.layout?.panes[0].screen.clip, "in its pane, not the main one")
        var after = Frame(width: 1, height: 1)
        try eventually("the same blue frame in pane 1 again", timeout: 20, interval: 0.1) {
            after = try PNG.decode(try chair.screenshot())
            return PaneClipOverTCPTests.near(after.pixel(x: centre.x, y: centre.y), RGB(0, 0, 255))
        }
        XCTAssertLessThan(PixelCompare.meanDifference(after, picture, PaneClipOverTCPTests.crop(before, picture)), 2, "the frame at 3 s, as before")
        let pane0 = PixelRect(x: 0, y: 0, width: 640, height: 720)
        XCTAssertEqual(PixelCompare.differingPixels(PaneClipOverTCPTests.crop(after, pane0), PaneClipOverTCPTests.crop(before, pane0)), 0, "pane 0's page as before")
    }
}
