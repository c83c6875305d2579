import LecternModel
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

    let drawn = RenderWire.Reply(serial: 7, .success(.init(pageRect: PixelRect(x: 240, y: 0, width: 1440, height: 1080))))

    func testEveryReplySurvivesTheTrip() throws {
        let errors: [ContentError] = [
            .empty, .notAPDF, .damaged(detail: "xref"), .passwordProtected, .noPages,
            .pageOutOfRange(page: 9, pageCount: 3), .unreadable(path: "a.pdf", reason: "gone"),
            .unsupportedMedia(detail: "x"), .tooSlow(page: 2, seconds: 0.5), .overLimits(page: 4, megabytes: 256),
        ]
        for e in errors {
            let r = RenderWire.Reply(serial: 7, error: e)
            XCTAssertEqual(try RenderWire.decodeReply(RenderWire.encode(r)), r)
        }
    }

    /// A page drawn comes back with its box and its transition, every style and direction.
    func testTheBoxAndTheTransitionSurviveTheTrip() throws {
        XCTAssertEqual(try RenderWire.decodeReply(RenderWire.encode(drawn)), drawn)
        for style in PageTransition.Style.allCases {
            for (dimension, motion, angle) in [(PageTransition.Dimension.vertical, PageTransition.Motion.outward, 270), (.horizontal, .inward, 0)] {
                let t = PageTransition(style: style, duration: 0.75, dimension: dimension, motion: motion, angle: angle)
                let r = RenderWire.Reply(serial: 9, .success(.init(pageRect: PixelRect(x: 0, y: 12, width: 1920, height: 1056), transition: t)))
                XCTAssertEqual(try RenderWire.decodeReply(RenderWire.encode(r)), r, "\(t)")
                let bytes = RenderWire.encode(r)
                for n in 0..<bytes.count { XCTAssertThrowsError(try RenderWire.decodeReply(Array(bytes.prefix(n))), "\(n) bytes") }
                XCTAssertThrowsError(try RenderWire.decodeReply(bytes + [0]))
            }
        }
    }

    /// A box outside any frame, an unknown style, a bad flag or duration: refused, not believed.
    func testAHostileBoxOrTransitionIsRefused() throws {
        let withFade = RenderWire.encode(RenderWire.Reply(serial: 1, .success(.init(pageRect: PixelRect(x: 0, y: 0, width: 8, height: 8), transition: .fade()))))
        // tag, version, serial (4), outcome: the box at 7, the flag at 23, the style at 24, the duration at 25.
        var empty = withFade
        empty[15...18] = [0, 0, 0, 0]   // width 0
        XCTAssertThrowsError(try RenderWire.decodeReply(empty))
        var huge = withFade
        huge[7...10] = [0xFF, 0xFF, 0xFF, 0x7F]   // x far past any frame
        XCTAssertThrowsError(try RenderWire.decodeReply(huge))
        var flag = withFade
        flag[23] = 2
        XCTAssertThrowsError(try RenderWire.decodeReply(flag))
        var style = withFade
        style[24] = UInt8(PageTransition.Style.allCases.count)
        XCTAssertThrowsError(try RenderWire.decodeReply(style))
        var nan = withFade
        nan[25...32] = ArraySlice(withUnsafeBytes(of: Double.nan.bitPattern.littleEndian) { Array($0) })
        XCTAssertThrowsError(try RenderWire.decodeReply(nan))
        XCTAssertNoThrow(try RenderWire.decodeReply(withFade))
    }

    /// A message of another version of the wire (a worker of another build) is refused.
    func testAnotherVersionIsRefused() {
        var request = RenderWire.encode(self.request)
        var reply = RenderWire.encode(drawn)
        XCTAssertEqual(request[1], RenderWire.version)
        XCTAssertEqual(reply[1], RenderWire.version)
        request[1] = RenderWire.version - 1
        reply[1] = RenderWire.version + 1
        XCTAssertThrowsError(try RenderWire.decodeRequest(request))
        XCTAssertThrowsError(try RenderWire.decodeReply(reply))
    }

    func testTruncatedExtendedOrMislabelledMessagesAreRefused() {
        let bytes = RenderWire.encode(request)
        for n in 0..<bytes.count {
            XCTAssertThrowsError(try RenderWire.decodeRequest(Array(bytes.prefix(n))), "\(n) bytes")
        }
        XCTAssertThrowsError(try RenderWire.decodeRequest(bytes + [0]))
        XCTAssertThrowsError(try RenderWire.decodeReply(bytes), "a request is not a reply")
        XCTAssertThrowsError(try RenderWire.decodeRequest(RenderWire.encode(drawn)), "a reply is not a request")
        var unknown = RenderWire.encode(RenderWire.Reply(serial: 1, error: .noPages))
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
