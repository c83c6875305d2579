import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// The code small in a corner of the wall while a device is joining (issue 19 must 1),
/// checked on the output's pixels: the page exactly, plus the corner while a connection
/// that got hello hasn't registered, and the page exactly again once it has (or left).
final class CornerCodeTests: XCTestCase {
    func testTheCodeShowsInTheCornerWhileADeviceIsJoining() throws {
        let h = try ServiceHarness(floor: .open) { c in
            c.passcode = nil
            c.screenCode = true
        }
        let code = try XCTUnwrap(h.service.currentScreenCode)
        let pdf = try Fixtures.numberedDeck(count: 2, in: h.dir)
        let ana = try h.connect()
        try ana.register(name: "Ana", role: .presenter, passcode: code)
        let stored = try ana.upload(path: pdf)
        _ = try ana.requestFloor()
        try ana.present(stored.content, page: 1)
        let page = try h.expectedFrame(pdf: pdf, page: 1)
        let withCorner = Frame(width: page.width, height: page.height)
        withCorner.copy(from: page)
        CornerCode.draw(code, into: withCorner)
        XCTAssertGreaterThan(PixelCompare.differingPixels(page, withCorner), 2000, "the corner is drawn")
        func assertOutput(_ expected: Frame, _ what: String) throws {
            var diff = -1
            try? eventually(what, timeout: 10, interval: 0.05) {
                diff = PixelCompare.differingPixels(h.service.onScreen, expected)
                return diff == 0
            }
            XCTAssertEqual(diff, 0, "\(what): \(diff) pixels differ")
        }
        try assertOutput(page, "the page alone while nobody joins")

        // Someone opens the web remote (hello, no register yet): the code in the corner.
        let joining = try h.connect()
        try assertOutput(withCorner, "the page with the code in the corner")
        // Joining done: the page alone again.
        try joining.register(name: "Ben", role: .presenter, passcode: code)
        try assertOutput(page, "the page alone after Ben joined")
        // One who gives up (closes without joining) takes the corner away too.
        let quitter = try h.connect()
        try assertOutput(withCorner, "the corner for the next one")
        quitter.close()
        try assertOutput(page, "the page alone after the quitter left")
        let out = Repository.root + "/.build/test-output"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try PNG.write(withCorner, to: out + "/corner-code-16x9.png")
    }

    /// A fixed passcode: nothing in the corner, whoever connects.
    func testNoCornerWithoutTheCodeOnTheWall() throws {
        let h = try ServiceHarness(floor: .open)
        let pdf = try Fixtures.numberedDeck(count: 1, in: h.dir)
        let ana = try h.presenter("Ana")
        let stored = try ana.upload(path: pdf)
        _ = try ana.requestFloor()
        try ana.present(stored.content, page: 1)
        let page = try h.expectedFrame(pdf: pdf, page: 1)
        try eventually("the page on the output", timeout: 10) { PixelCompare.differingPixels(h.service.onScreen, page) == 0 }
        let joining = try h.connect()   // its hello came: the room handled its opening
        let room = h.service.room
        XCTAssertNil(try room.loop.submit { room.cornerCode }.wait())
        XCTAssertEqual(PixelCompare.differingPixels(h.service.onScreen, page), 0)
        joining.close()
    }
}
