import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// What a client is told when something goes wrong names no server path: that is for the
/// appliance's log.
final class ErrorMappingTests: XCTestCase {
    typealias H = RoomCoreHarness

    func testContentErrorsAreMappedWithoutPaths() {
        let unreadable = LecternError(mapping: ContentError.unreadable(path: "/var/lib/lectern/content/ab12", reason: "can't open"))
        XCTAssertEqual(unreadable.code, .unreadableContent)
        XCTAssertFalse(unreadable.message.contains("/var"), unreadable.message)
        XCTAssertEqual(LecternError(mapping: ContentError.pageOutOfRange(page: 9, pageCount: 3)).code, .pageOutOfRange)
        XCTAssertEqual(LecternError(mapping: ContentError.notAPDF).code, .unsupportedFileType)
        struct Odd: Error { let path = "/etc/lectern/secret" }
        XCTAssertEqual(LecternError(mapping: Odd()), .internalError)
    }

    func testAStorageFailureIsToldInWordsAndLoggedWithItsDetail() {
        let h = H()
        let ana = h.join(1, name: "Ana")
        h.send(.uploadBegin(UploadBegin(content: cid(3), size: 10, kind: .pdf, proof: nil, name: "a.pdf")), from: 1, device: ana)
        let effects = h.handle(.partOpened(cid(3), writer: 1, failure: "/var/lib/lectern/uploads/0303.part: Permission denied"))
        guard case .error(let e)? = H.replies(to: 1, effects).first else { return XCTFail("\(effects)") }
        XCTAssertEqual(e.code, .storageFailed)
        XCTAssertFalse(e.message.contains("/var"), e.message)
        XCTAssertTrue(RoomCoreLogTests.logLines(effects).contains { $0.contains("/var/lib/lectern/uploads/0303.part") }, "the log has it")
    }
}
