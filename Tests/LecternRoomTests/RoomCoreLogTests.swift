import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// The room's log under attack: one line per event whatever a name holds, and lines that
/// repeat left out past a few a minute.
final class RoomCoreLogTests: XCTestCase {
    typealias H = RoomCoreHarness

    static func logLines(_ effects: [RoomEffect]) -> [String] {
        effects.compactMap { if case .log(_, let line) = $0 { return line } else { return nil } }
    }

    func testANameCannotForgeOrHideALogLine() {
        let h = H()
        let hello = h.open(1)
        let name = "eve\n2026-11-24T01:00:00 info lecternd: moderator 'Chair' registered\u{202E}"
        let effects = h.send(h.register(1, hello: hello, name: name, role: .presenter, passcode: "wrong guess"), from: 1)
        let lines = Self.logLines(effects)
        XCTAssertEqual(lines.count, 1)
        XCTAssertFalse(lines[0].contains("\n"))
        XCTAssertFalse(lines[0].unicodeScalars.contains { $0.properties.generalCategory == .format })
        XCTAssertTrue(lines[0].contains("eve\\u{a}2026"), lines[0])
        XCTAssertTrue(lines[0].contains("\\u{202e}"), lines[0])
    }

    func testRepeatedLinesAreLeftOutAndCountedLater() {
        let h = H()
        var written: [String] = []
        // Over a minute: the room's guessing budget (5 at once, 25 a minute: §7.3) lets about
        // 30 wrong guesses be checked, more than the 10 lines a minute the log writes.
        for i in 0..<200 {
            h.now += 0.3
            let id = ConnectionID(100 + i)
            let hello = h.open(id, address: "10.9.\(i / 250).\(i % 250)")
            written += Self.logLines(h.send(h.register(id, hello: hello, name: "guess\(i)", role: .presenter, passcode: "x"), from: id))
                .filter { !$0.hasPrefix("connection") }
        }
        // Wrong guesses, then (the room's guessing budget spent) throttled ones: each kind at
        // most 10 lines a minute.
        XCTAssertEqual(written.filter { $0.hasPrefix("wrong") }.count, 10, "\(written)")
        XCTAssertLessThanOrEqual(written.count, 20, "200 guesses from 200 addresses")
        h.now += 61
        let hello = h.open(999, address: "10.9.9.9")
        let lines = Self.logLines(h.send(h.register(999, hello: hello, name: "late", role: .presenter, passcode: "x"), from: 999))
            .filter { !$0.hasPrefix("connection") }
        XCTAssertTrue(lines.first?.hasPrefix("(") == true && lines.first?.contains("lines like the next were left out in the last 60 s") == true, "\(lines)")
        XCTAssertTrue(lines.last?.hasPrefix("wrong presenter passcode from 10.9.9.9") == true, "\(lines)")
    }
}
