import Foundation
import LecternClient
import LecternModel
import LecternPipeline
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// Issue 25: a 488-byte PDF whose cross-reference table claims object 32,999,999 took
/// lecternd from 77 MB to 1,368 MB when uploaded (poppler opened it in the service's own
/// process, allocating an entry per claimed object; the unit allows 640 MB). The service now
/// opens a PDF only after a bounded child did (`DeckProbe`, docs/protocol.md §12.1), at
/// upload and once at start for files stored before. TLS on, as shipped.
final class UploadOpeningTests: XCTestCase {
    func tlsRoom() throws -> ServiceHarness {
        try ServiceHarness(floor: .open) { $0.tls = true }
    }

    func join(_ h: ServiceHarness, _ name: String) throws -> LecternConnection {
        let fp = try XCTUnwrap(h.service.tlsIdentity).fingerprint
        let c = try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(fp))
        try c.register(name: name, role: .presenter, passcode: ServiceHarness.presenterPass)
        return c
    }

    /// The uploader is told why (the limit named), nothing is stored, the service's memory
    /// stays where it was, and the floor holder's page turn works.
    func testTheUploadIsRefusedNamingTheLimitAndTheServiceStaysSmall() throws {
        let h = try tlsRoom()
        let ana = try join(h, "Ana"), bob = try join(h, "Bob")
        _ = try ana.requestFloor()
        let plain = try Fixtures.numberedDeck(count: 3, in: h.dir)
        let deck = try ana.upload(path: plain)
        XCTAssertEqual(deck.pageCount, 3, "a normal upload still stores with its pages")
        try ana.present(deck.content, page: 1)

        let bomb = try XrefClaimDeck.write(in: h.dir)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: bomb)[.size] as? NSNumber).intValue
        XCTAssertLessThan(size, 600, "the issue's file: a few hundred bytes")
        let hex = try ContentStore.sha256(ofFile: bomb)
        PeakResident.reset()
        let before = PeakResident.current
        XCTAssertThrowsError(try bob.upload(path: bomb)) { error in
            let e = (error as? LecternConnection.ClientError)?.lecternError
            XCTAssertEqual(e?.code, .unreadableContent, "\(error)")
            XCTAssertTrue(e?.message.contains("opening it needs more than the 128 MB of memory or 2 s") ?? false, e?.message ?? "")
        }
        let growth = PeakResident.bytes - before
        XCTAssertLessThan(growth, 100 << 20, "the service grew by \(growth >> 20) MB (1.3 GB before the fix)")
        XCTAssertNil(h.service.store.item(hex), "not stored")
        XCTAssertFalse(FileManager.default.fileExists(atPath: h.service.store.path(of: hex)))

        // The room goes on: the floor holder turns the page, and it shows.
        try ana.present(deck.content, page: 2)
        let shot = try PNG.decode(ana.screenshot())
        XCTAssertEqual(PixelCompare.differingPixels(shot, try h.expectedFrame(pdf: plain, page: 2)), 0, "page 2 on the wall")
    }

    /// The same file stored before the fix (its description has no check mark) is checked
    /// at start before anything opens it: removed from the store, the service stays small,
    /// and the other decks are there with their facts, checked once.
    func testAFileStoredBeforeIsCheckedAtStartAndRemoved() throws {
        let h = try tlsRoom()
        let plain = try Fixtures.labelledDeck(labels: ["i", "ii", "1"], in: h.dir)
        let deck = try join(h, "Ana").upload(path: plain)
        let store = h.service.store
        // As an older lecternd left them: a description without the mark, for both files.
        let bomb = try XrefClaimDeck.write(in: h.dir)
        let hex = try ContentStore.sha256(ofFile: bomb)
        try FileManager.default.copyItem(atPath: bomb, toPath: store.path(of: hex))
        for (id, name, pages) in [(hex, "xref.pdf", 1), (deck.content.hex, "labelled.pdf", 3)] {
            let old = #"{"uploader":"","pages":\#(pages),"size":1,"kind":"pdf","name":"\#(name)","id":"\#(id)"}"#
            try Data(old.utf8).write(to: URL(fileURLWithPath: store.path(of: id) + ".json"))
        }

        PeakResident.reset()
        let before = PeakResident.current
        try h.restart()
        let growth = PeakResident.bytes - before
        XCTAssertLessThan(growth, 150 << 20, "the restart grew the process by \(growth >> 20) MB (1.3 GB before the fix)")
        let restarted = h.service.store
        XCTAssertNil(restarted.item(hex), "removed from the store")
        XCTAssertFalse(FileManager.default.fileExists(atPath: restarted.path(of: hex)))
        let kept = try XCTUnwrap(restarted.item(deck.content.hex))
        XCTAssertEqual(kept.openChecked, DeckProbe.rule, "checked once, and marked")
        XCTAssertEqual(kept.deck?.labels, ["i", "ii", "1"])

        let ana = try join(h, "Ana")
        _ = try ana.requestFloor()
        _ = try ana.upload(path: plain)   // owner again (a new session)
        try ana.present(deck.content, page: 3)
        let shot = try PNG.decode(ana.screenshot())
        XCTAssertEqual(PixelCompare.differingPixels(shot, try h.expectedFrame(pdf: plain, page: 3)), 0, "the checked deck shows")
    }

    /// A file without the %PDF- header that poppler would still try is tried only in the
    /// child: over its budget it is refused for that, not opened here.
    func testAHeaderlessFileIsTriedOnlyInTheChild() throws {
        let dir = Fixtures.tempDir("headerless")
        let store = try ContentStore(dataDir: dir + "/data")
        let bomb = try XrefClaimDeck.write(in: dir)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: bomb))
        bytes.replaceSubrange(0..<5, with: Data("%XYZ-".utf8))
        let headerless = dir + "/headerless.bin"
        try bytes.write(to: URL(fileURLWithPath: headerless))
        PeakResident.reset()
        let before = PeakResident.current
        XCTAssertThrowsError(try store.add(fileAt: headerless)) { error in
            XCTAssertEqual(error as? ContentError, .unreadable(path: "headerless.bin", reason: DeckProbe.openingReason(store.probe.limits)))
        }
        XCTAssertLessThan(PeakResident.bytes - before, 100 << 20)
    }
}
