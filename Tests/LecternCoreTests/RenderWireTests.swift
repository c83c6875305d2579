import LecternCore
import XCTest

/// The render worker's messages, in memory: what is encoded decodes to the same, and what
/// a confused or hostile peer sends is refused rather than believed.
final class RenderWireTests: XCTestCase {
    let request = RenderWire.Request(
        serial: 0xDEAD_BEEF, path: "/var/lib/lectern/content/ab€", page: 12, width: 1920, height: 1080,
        background: RGB(1, 2, 3), overscanPercent: 2.5, part: .right)

    func testARequestSurvivesTheTrip() throws {
        XCTAssertEqual(try RenderWire.decodeRequest(RenderWire.encode(request)), request)
        XCTAssertEqual(request.byteCount, 1920 * 4 * 1080)
    }

    func testEveryReplySurvivesTheTrip() throws {
        let errors: [ContentError?] = [
            nil, .empty, .notAPDF, .damaged(detail: "xref"), .passwordProtected, .noPages,
            .pageOutOfRange(page: 9, pageCount: 3), .unreadable(path: "a.pdf", reason: "gone"),
            .unsupportedMedia(detail: "x"), .tooSlow(page: 2, seconds: 0.5), .overLimits(page: 4, megabytes: 256),
        ]
        for e in errors {
            let r = RenderWire.Reply(serial: 7, error: e)
            XCTAssertEqual(try RenderWire.decodeReply(RenderWire.encode(r)), r)
        }
    }

    func testTruncatedExtendedOrMislabelledMessagesAreRefused() {
        let bytes = RenderWire.encode(request)
        for n in 0..<bytes.count {
            XCTAssertThrowsError(try RenderWire.decodeRequest(Array(bytes.prefix(n))), "\(n) bytes")
        }
        XCTAssertThrowsError(try RenderWire.decodeRequest(bytes + [0]))
        XCTAssertThrowsError(try RenderWire.decodeReply(bytes), "a request is not a reply")
        XCTAssertThrowsError(try RenderWire.decodeRequest(RenderWire.encode(RenderWire.Reply(serial: 1))), "a reply is not a request")
        var unknown = RenderWire.encode(RenderWire.Reply(serial: 1))
        unknown[unknown.count - 1] = 200
        XCTAssertThrowsError(try RenderWire.decodeReply(unknown))
    }

    func testOutOfRangeRequestsAreRefused() {
        var r = request
        r.width = RenderWire.maxSide + 1
        XCTAssertThrowsError(try RenderWire.decodeRequest(RenderWire.encode(r)))
        r = request
        r.page = 0
        XCTAssertThrowsError(try RenderWire.decodeRequest(RenderWire.encode(r)))
        r = request
        r.overscanPercent = .nan
        XCTAssertThrowsError(try RenderWire.decodeRequest(RenderWire.encode(r)))
        r = request
        r.path = ""
        XCTAssertThrowsError(try RenderWire.decodeRequest(RenderWire.encode(r)))
    }

    func testAPathBeyondTheLimitIsCutNotTrusted() throws {
        var r = request
        r.path = String(repeating: "a", count: RenderWire.maxPath + 10)
        XCTAssertEqual(try RenderWire.decodeRequest(RenderWire.encode(r)).path.utf8.count, RenderWire.maxPath)
    }
}
