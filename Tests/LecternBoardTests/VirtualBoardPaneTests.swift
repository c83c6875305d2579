import Foundation
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// A split of a page and a clip on the virtual board (issue 26): lecternd in the guest on a
/// real KMS driver (bochs-display, 1920×1080), driven with the `lectern` CLI, the scanout read
/// back with QEMU's screendump; each pane's bars exact where the analytic fit puts them.
final class VirtualBoardPaneTests: XCTestCase {
    static let moderatorPasscode = "board-moderator-1"

    /// The CLI as the chair (a device of its own, registered as the moderator).
    func chair(_ board: VirtualBoardTests.Board, _ args: [String]) throws {
        let r = try Fixtures.run(
            "env",
            [
                "LECTERN_MODERATOR_PASSCODE=\(Self.moderatorPasscode)",
                "LECTERN_SESSION_FILE=\(board.dir)/chair-session", "LECTERN_KNOWN_ROOMS=\(board.dir)/known-rooms", try Fixtures.binary("lectern"),
            ] + args + ["--moderator", "--host", "127.0.0.1", "--port", "\(board.port)", "--name", "board-chair"])
        guard r.status == 0 else { throw Fixtures.ToolError(description: "lectern \(args.joined(separator: " ")) --moderator failed: \(r.err)") }
    }

    static func near(_ c: RGB, _ e: RGB) -> Bool {
        abs(Int(c.r) - Int(e.r)) <= 40 && abs(Int(c.g) - Int(e.g)) <= 40 && abs(Int(c.b) - Int(e.b)) <= 40
    }

    func testASplitOfAPageAndAClipOnTheRealOutputEachPaneWithExactBars() throws {
        let board = try VirtualBoardTests.Board(
            device: "bochs", width: 1920, height: 1080, extraConfig: "moderator_passcode = \"\(Self.moderatorPasscode)\"")
        let dir = Fixtures.tempDir("board-pane")
        let deck = try Fixtures.pdf([Fixtures.quadrantPage(width: 720, height: 540), Fixtures.quadrantPage(width: 720, height: 540)], in: dir)
        let clip = try Fixtures.halvesClip(in: dir)
        try board.lectern(["floor", "request"])
        try board.lectern(["present", deck])
        try chair(board, ["layout", "split"])
        try chair(board, ["pane", "1", "play", clip, "--loop"])

        // The analytic fit: two 960×1080 panes; a 4:3 picture in each is 960×720 with 180
        // rows of background above and below.
        let panes = WallLayout.split.paneRects(width: 1920, height: 1080)
        let page = Fit.rect(aspect: 720.0 / 540.0, in: panes[0])
        let picture = Fit.rect(aspect: 4.0 / 3.0, in: panes[1])
        XCTAssertEqual(page, PixelRect(x: 0, y: 180, width: 960, height: 720))
        XCTAssertEqual(picture, PixelRect(x: 960, y: 180, width: 960, height: 720))
        func barsExact(_ f: Frame, _ pane: PixelRect, _ inner: PixelRect) -> Bool {
            f.isUniform(PixelRect(x: pane.x, y: pane.y, width: pane.width, height: inner.y - pane.y), .black)
                && f.isUniform(PixelRect(x: pane.x, y: inner.maxY, width: pane.width, height: pane.maxY - inner.maxY), .black)
        }
        let shot = try board.waitForScreen(timeout: 60, "the page in pane 0 and the clip in pane 1") { f in
            barsExact(f, panes[0], page) && barsExact(f, panes[1], picture)
                // The page's top and bottom rows are the page's white, the clip's its red and blue.
                && f.pixel(x: 480, y: page.y) == .white && f.pixel(x: 480, y: page.maxY - 1) == .white
                && Self.near(f.pixel(x: 1100, y: picture.y), RGB(255, 0, 0)) && Self.near(f.pixel(x: 1100, y: picture.maxY - 1), RGB(255, 0, 0))
                && Self.near(f.pixel(x: 1780, y: picture.y + 360), RGB(0, 0, 255))
        }
        // The page's quadrants where the fit puts them: its red box at 10 %–40 % of the page.
        XCTAssertTrue(Self.near(shot.pixel(x: page.x + page.width / 4, y: page.y + page.height / 4), RGB(255, 0, 0)))
        let s = try Snapshot.fromJSON(Array(try board.lectern(["status", "--json"]).utf8))
        XCTAssertEqual(s.layout?.panes[1].screen.clip?.state, .playing)
        XCTAssertEqual(s.layout?.soundPane, 1)
        let before = s.layout?.panes[1].screen.clip?.presentedFrames ?? 0
        // A page turn in pane 0 leaves the clip in pane 1 playing.
        try board.lectern(["next"])
        try eventually("the clip to play on beside the turned page; log: \(board.log)", timeout: 30, interval: 0.5) {
            let now = try Snapshot.fromJSON(Array(try board.lectern(["status", "--json"]).utf8))
            return now.layout?.panes[0].screen.page == 2 && (now.layout?.panes[1].screen.clip?.presentedFrames ?? 0) > before + 10
        }
        _ = try board.waitForScreen("the split still exact after the turn") { f in barsExact(f, panes[0], page) && barsExact(f, panes[1], picture) }
    }
}
