import Foundation
import LecternClient
import LecternModel
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternRoom
import LecternService
import LecternTestSupport
import XCTest

/// `lectern point`, `lectern draw`, `lectern ink`, `status --json` against the real lecternd,
/// and ink surviving `kill -9`.
final class InkCLITests: XCTestCase {
    /// 4:3 on 1280×720: the page is 960×720 at x = 160.
    static let rect = PixelRect(x: 160, y: 0, width: 960, height: 720)
    static func wall(_ px: Double, _ py: Double) -> (x: Int, y: Int) {
        (rect.x + Int(px * Double(rect.width)), rect.y + Int(py * Double(rect.height)))
    }

    func testDrawPointAndInkFromTheCommandLine() throws {
        let d = try CLITests.Daemon(floor: "open")
        let pdf = try Fixtures.pdf([Fixtures.quadrantPage(width: 800, height: 600)], in: d.dir)
        XCTAssertEqual(try d.lectern(["present", pdf], name: "alice").status, 0)
        let stroke = d.dir + "/stroke.json"
        try #"{"points": [[0.2, 0.5], [0.5, 0.5], [0.8, 0.5]], "width": "thick", "color": 3}"#.write(toFile: stroke, atomically: true, encoding: .utf8)
        let drawn = try d.lectern(["draw", stroke], name: "alice")
        XCTAssertEqual(drawn.status, 0, drawn.err)
        XCTAssertEqual(UInt32(drawn.out.trimmingCharacters(in: .whitespacesAndNewlines)), 1, drawn.out)

        let json = try d.lectern(["status", "--json"], name: "alice").out
        let s = try Snapshot.fromJSON(Array(json.utf8))
        XCTAssertEqual(s.ink?.pages.map(\.strokes), [1], json)
        XCTAssertEqual(s.ink?.pages.first?.page, 1)
        XCTAssertTrue(try d.lectern(["status"], name: "alice").out.contains("ink: 1 stroke"))

        let shot = d.dir + "/shot.png"
        XCTAssertEqual(try d.lectern(["screenshot", shot], name: "alice").status, 0)
        let f = try PNG.read(path: shot)
        let mid = Self.wall(0.5, 0.5), off = Self.wall(0.5, 0.45)
        XCTAssertEqual(f.pixel(x: mid.x, y: mid.y), InkPalette.colors[2])
        XCTAssertNotEqual(f.pixel(x: off.x, y: off.y), InkPalette.colors[2])

        // Bob is neither holder nor moderator: clearing and allowing are refused (area 0x08 → 18).
        let clear = try d.lectern(["ink", "clear"], name: "bob")
        XCTAssertEqual(clear.status, 18, clear.err)
        XCTAssertTrue(clear.err.contains("presenter with the floor or the moderator"), clear.err)
        XCTAssertEqual(try d.lectern(["ink", "allow", "1"], name: "bob").status, 18)
        XCTAssertEqual(try d.lectern(["ink", "allow"], name: "alice").status, 1, "allow needs a device")
        XCTAssertEqual(try d.lectern(["point", "1.5", "0.5"], name: "alice").status, 1, "outside the page")

        let point = try d.lectern(["point", "0.25", "0.5", "--hold", "0"], name: "alice")
        XCTAssertEqual(point.status, 0, point.err)
        let cleared = try d.lectern(["ink", "clear", "--deck"], name: "alice")
        XCTAssertEqual(cleared.status, 0, cleared.err)
        XCTAssertTrue(try d.lectern(["status", "--json"], name: "alice").out.contains("\"strokes\":0"))
        let bad = d.dir + "/bad.json"
        try #"{"points": [[0.2, 2]]}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        XCTAssertEqual(try d.lectern(["draw", bad], name: "alice").status, 1)
    }

    func testKill9AndRestartKeepEveryStroke() throws {
        let s = ApplianceServiceTests.Setup()
        try s.writeConfig(passcode: "ink-restart-pass")
        var (p, port) = try s.start()
        let a = try LecternConnection(host: "127.0.0.1", port: port, tls: ClientTLS { _ in true })   // lecternd on its defaults: TLS
        try a.register(name: "A", role: .presenter, passcode: "ink-restart-pass")
        _ = try a.requestFloor()
        let pdf = try Fixtures.pdf(Array(repeating: Fixtures.quadrantPage(width: 800, height: 600), count: 2), in: s.dir)
        let stored = try a.upload(path: pdf)
        try a.present(stored.content)
        let points = [InkPoint(px: 0.2, py: 0.5), InkPoint(px: 0.5, py: 0.45), InkPoint(px: 0.8, py: 0.5)]
        try a.draw(points, width: .thick, colorIndex: 2)
        try a.control(.next)
        try a.draw([InkPoint(px: 0.3, py: 0.5), InkPoint(px: 0.6, py: 0.5)], colorIndex: 4)
        XCTAssertEqual(try a.request(.ink(.whiteboard(black: true))), .presentOK)
        try a.draw([InkPoint(px: 0.1, py: 0.9), InkPoint(px: 0.9, py: 0.1)], width: .thick, colorIndex: 7)
        try a.present(stored.content, page: 1)
        let before = try PNG.decode(a.screenshot())
        try eventually("state.json with both strokes", timeout: 10) {
            // three strokes in the room's ink (the meeting record, §26, keeps copies of its own)
            guard let data = FileManager.default.contents(atPath: s.dir + "/data/state.json") else { return false }
            return (try? JSONDecoder().decode(SavedState.self, from: data))?.ink?.pages.reduce(0) { $0 + $1.strokes.count } == 3
        }
        p.kill(SIGKILL)
        XCTAssertEqual(p.waitForExit(), SIGKILL)
        (p, port) = try s.start(port: port)
        let b = try LecternConnection(host: "127.0.0.1", port: port, tls: ClientTLS { _ in true })   // lecternd on its defaults: TLS
        try b.register(name: "B", role: .presenter, passcode: "ink-restart-pass")
        XCTAssertEqual(try b.state().ink?.pages.map(\.strokes), [1, 1, 1])
        XCTAssertEqual(try b.state().ink?.whiteboards, [0, 1])
        XCTAssertEqual(try b.inkStrokes(content: stored.content, page: 1).map(\.points), [points])
        try eventually("page 1 with its stroke again") { PixelCompare.differingPixels(try PNG.decode(b.screenshot()), before) == 0 }
        // the black board and its stroke are still in the meeting
        let m = try LecternConnection(host: "127.0.0.1", port: port, tls: ClientTLS { _ in true })   // lecternd on its defaults: TLS
        try m.register(name: "M", role: .moderator, passcode: "appliance-moderator")
        try m.present(try XCTUnwrap(ContentID(hex: Whiteboard.blackHex)), page: 1)
        try eventually("the black board with its yellow stroke") {
            let f = try PNG.decode(m.screenshot())   // 1280×720: the board is the whole output
            return f.pixel(x: 640, y: 360) == InkPalette.colors[6] && f.pixel(x: 100, y: 100) == .black
        }
    }
}
