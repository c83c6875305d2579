import LecternModel
import LecternProtocol
@testable import LecternRoom
import XCTest

/// The room's core decides when the code on the wall changes and draws it (§7.3,
/// RoomCore+ScreenCode.swift); the shell only derives its keys (`.newScreenCode`).
final class ScreenCodeCoreTests: XCTestCase {
    typealias H = RoomCoreHarness

    static func newCodes(_ effects: [RoomEffect]) -> [String] {
        effects.compactMap { if case .newScreenCode(let c) = $0 { return c } else { return nil } }
    }

    func room(lifetime: Double = 3600) -> H {
        H(floor: .open, screenCode: ScreenCode(lifetime: lifetime, now: 1000, random: { 123_456 })) { $0.gracePeriod = 0 }
    }

    func testAMeetingsEndDrawsANewCodeForTheShellToKeyAndAViewerDoesnt() {
        let h = room()
        XCTAssertEqual(Self.newCodes(h.handle(.tick)), [], "an empty room keeps its code")
        h.join(1, name: "Ana")
        XCTAssertEqual(Self.newCodes(h.handle(.tick)), [], "a meeting is on")
        h.handle(.closed(1))
        let ended = Self.newCodes(h.handle(.tick))
        XCTAssertEqual(ended.count, 1, "the meeting ended: one new code")
        XCTAssertNotEqual(ended.first, "123456", "never the code before")
        XCTAssertEqual(ended.first?.count, ScreenCode.digits)
        XCTAssertTrue(h.log.contains(.log(.info, "a new code on the wall (the meeting ended or its time was up)")))
        XCTAssertEqual(Self.newCodes(h.handle(.tick)), [], "once")
    }

    func testTheCodesTimeRunsOutOnTheEventsClock() {
        let h = room(lifetime: 60)
        h.now += 59
        XCTAssertEqual(Self.newCodes(h.handle(.tick)), [])
        h.now += 1
        XCTAssertEqual(Self.newCodes(h.handle(.tick)).count, 1)
    }

    func testNoCodeNoDrawing() {
        let h = H(floor: .open) { $0.gracePeriod = 0 }
        h.join(1, name: "Ana")
        h.handle(.closed(1))
        h.now += 7200
        XCTAssertEqual(Self.newCodes(h.handle(.tick)), [])
    }
}
