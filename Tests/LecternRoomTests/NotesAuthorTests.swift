import LecternModel
import LecternProtocol
@testable import LecternRoom
import XCTest

/// Typed notes belong to their author's upload (issue 25, finding 7): the same PDF uploaded
/// by a second presenter is the same stored file, but the second neither replaces nor
/// reads the first's typed notes, with or without the floor; a .pdfpc file's notes stay
/// with the file.
final class NotesAuthorTests: XCTestCase {
    typealias H = RoomCoreHarness

    func notes(_ h: H, _ id: ConnectionID, device: DeviceID, page: UInt32 = 0) -> NotesReply? {
        for m in H.replies(to: id, h.send(.notesRequest(NotesRequest(content: cid(1), page: page)), from: id, device: device)) {
            if case .notes(let n) = m { return n }
        }
        return nil
    }

    func edit(_ h: H, _ id: ConnectionID, device: DeviceID, page: UInt32, _ text: String) -> ErrorCode? {
        let effects = h.send(.notesEdit(NotesEdit(content: cid(1), page: page, text: text)), from: id, device: device)
        return H.errorCode(to: id, effects)
    }

    func testASecondUploaderOfTheSameFileNeitherReplacesNorReadsTheFirstsTypedNotes() {
        let h = H(floor: .open, catalog: [deck(1, pages: 3)])
        let ana = h.join(1, name: "Ana")
        let eve = h.join(2, name: "Eve")
        h.own(cid(1), from: 1, device: ana)
        XCTAssertNil(edit(h, 1, device: ana, page: 1, "Ana's secret plan"), "the uploader types a note before presenting")
        // Eve uploads the same PDF (the viewers' download link): the same stored file.
        h.own(cid(1), from: 2, device: eve)
        XCTAssertNil(edit(h, 2, device: eve, page: 1, "Eve was here"), "Eve types her own note")
        // Eve takes the floor and shows the deck: she reads her note, never Ana's.
        h.send(.floorRequest, from: 2, device: eve)
        h.shown(h.send(.present(content: cid(1), page: 1), from: 2, device: eve))
        XCTAssertEqual(notes(h, 2, device: eve, page: 1)?.pages.first?.text, "Eve was here")
        XCTAssertNil(edit(h, 2, device: eve, page: 2, ""), "removing a note she doesn't have")
        let all = notes(h, 2, device: eve)
        XCTAssertFalse(all.map { "\($0)" }?.contains("Ana's secret plan") ?? true, "Eve read Ana's note")
        // Ana, once she presents again, finds her own note as she typed it.
        h.send(.floorRelease, from: 2, device: eve)
        h.send(.floorRequest, from: 1, device: ana)
        XCTAssertEqual(notes(h, 1, device: ana, page: 1)?.pages.first?.text, "Ana's secret plan")
        XCTAssertEqual(notes(h, 1, device: ana, page: 1)?.pages.first?.source, "typed")
        // What is saved beside the upload keeps both, each under its author.
        let saved = h.log.compactMap { if case .saveNotes(_, let n) = $0 { n } else { nil } }.last
        XCTAssertEqual(saved?.authors, 2)
        XCTAssertTrue(saved?.pages.isEmpty ?? false, "no typed note became the file's")
    }

    /// A .pdfpc file's notes stay with the file: every presenter of it reads them, under
    /// their own typed notes; the attacher's own typed notes give way to the file.
    func testAPdfpcFilesNotesStayWithTheFile() {
        let h = H(floor: .open, catalog: [deck(1, pages: 3)])
        let ana = h.join(1, name: "Ana")
        let bob = h.join(2, name: "Bob")
        h.own(cid(1), from: 1, device: ana)
        h.own(cid(1), from: 2, device: bob)
        XCTAssertNil(edit(h, 2, device: bob, page: 2, "Bob's own"))
        XCTAssertNil(edit(h, 1, device: ana, page: 1, "typed before the file"))
        let pdfpc = Array(
            #"{"pdfpcFormat":2,"pages":[{"idx":0,"label":"1","overlay":0,"note":"from the file, page 1"},{"idx":1,"label":"2","overlay":0,"note":"from the file, page 2"}]}"#.utf8)
        XCTAssertNil(H.errorCode(to: 1, h.send(.notesFile(content: cid(1), file: pdfpc), from: 1, device: ana)))
        h.send(.floorRequest, from: 1, device: ana)
        XCTAssertEqual(notes(h, 1, device: ana)?.pages.map(\.text), ["from the file, page 1", "from the file, page 2", ""])
        h.send(.floorRelease, from: 1, device: ana)
        h.send(.floorRequest, from: 2, device: bob)
        XCTAssertEqual(notes(h, 2, device: bob)?.pages.map(\.text), ["from the file, page 1", "Bob's own", ""])
    }
}
