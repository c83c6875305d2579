import Foundation
import LecternModel
import LecternRoom
import LecternService
import LecternTestSupport
import XCTest

/// The content store's `<sha256>.json` files: the format on disk doesn't change.
final class ContentStoreTests: XCTestCase {
    let id = String(repeating: "ab", count: 32)

    /// A store as an older lecternd left it: a file and its description written by hand.
    func storeWith(json: String) throws -> ContentStore {
        let dir = Fixtures.tempDir("store")
        let store = try ContentStore(dataDir: dir)
        XCTAssertTrue(FileManager.default.createFile(atPath: store.path(of: id), contents: Data("%PDF-1.4".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: store.path(of: id) + ".json", contents: Data(json.utf8)))
        return store
    }

    func testOldDescriptionsStillLoad() throws {
        let pdf = try storeWith(json: #"{"id":"\#(id)","name":"deck.pdf","kind":"pdf","size":8,"pages":3,"uploader":"alice"}"#)
        let item = try XCTUnwrap(pdf.item(id))
        XCTAssertEqual(item.kind, .pdf)
        XCTAssertEqual(item.name, "deck.pdf")
        XCTAssertEqual(item.pages, 3)
        XCTAssertEqual(item.size, 8)
        XCTAssertEqual(item.uploader, "alice")
        XCTAssertEqual(pdf.items().map(\.id), [id])

        let clip = try storeWith(json: #"{"uploader":"","pages":0,"size":8,"kind":"clip","name":"intro.mp4","id":"\#(id)"}"#)
        XCTAssertEqual(clip.item(id)?.kind, .clip)
        XCTAssertNil(clip.item(id)?.durationMs, "written before durations were kept")
        XCTAssertEqual(clip.entries().map(\.durationMs), [0], "probed at start; this one isn't a real clip")
        let timed = try storeWith(json: #"{"uploader":"","pages":0,"size":8,"kind":"clip","name":"intro.mp4","id":"\#(id)","durationMs":4000}"#)
        XCTAssertEqual(timed.entries().map(\.durationMs), [4000])

        let unknown = try storeWith(json: #"{"id":"\#(id)","name":"x","kind":"png","size":8,"pages":0,"uploader":""}"#)
        XCTAssertNil(unknown.item(id))
    }

    /// A clip stored before durations were kept is probed once: its description keeps it.
    func testAnOldClipIsProbedOnceForItsLength() throws {
        let dir = Fixtures.tempDir("store")
        let store = try ContentStore(dataDir: dir)
        let clip = try Fixtures.clip(in: dir, seconds: 2)
        let hex = try ContentStore.sha256(ofFile: clip)
        try FileManager.default.copyItem(atPath: clip, toPath: store.path(of: hex))
        let old = #"{"uploader":"","pages":0,"size":1,"kind":"clip","name":"clip.mp4","id":"\#(hex)"}"#
        XCTAssertTrue(FileManager.default.createFile(atPath: store.path(of: hex) + ".json", contents: Data(old.utf8)))
        XCTAssertEqual(store.entries().map(\.durationMs), [2000])
        XCTAssertEqual(store.item(hex)?.durationMs, 2000, "kept in its description: the next start doesn't probe it")
    }

    func testDescriptionsAreWrittenAsBefore() throws {
        let dir = Fixtures.tempDir("store")
        let store = try ContentStore(dataDir: dir)
        let deck = try Fixtures.numberedDeck(count: 2, in: dir)
        let item = try store.add(fileAt: deck)
        let json = try XCTUnwrap(FileManager.default.contents(atPath: store.path(of: item.id) + ".json"))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        XCTAssertEqual(object["kind"] as? String, "pdf")
        XCTAssertEqual(object["pages"] as? Int, 2)
        // The fields as before, and a PDF's console facts (labels, beamer layout, annotations):
        // an older lecternd reading this description ignores the key it doesn't know.
        // and the mark of the check it passed in a child before anything opened it here (§12.1).
        XCTAssertEqual(Set(object.keys), ["id", "name", "kind", "size", "pages", "uploader", "deck", "openChecked"])
        let facts = try XCTUnwrap(object["deck"] as? [String: Any])
        XCTAssertEqual(facts["labels"] as? [String], ["1", "2"])
        XCTAssertEqual(facts["detectedLayout"] as? String, "none")
    }

    /// A PDF stored before the console's facts were kept gets them once, at the next start.
    func testAnOldDeckGetsItsLabelsOnce() throws {
        let dir = Fixtures.tempDir("store")
        let store = try ContentStore(dataDir: dir)
        let deck = try Fixtures.labelledDeck(labels: ["i", "ii", "1"], in: dir)
        let hex = try ContentStore.sha256(ofFile: deck)
        try FileManager.default.copyItem(atPath: deck, toPath: store.path(of: hex))
        let old = #"{"uploader":"","pages":3,"size":1,"kind":"pdf","name":"labelled.pdf","id":"\#(hex)"}"#
        XCTAssertTrue(FileManager.default.createFile(atPath: store.path(of: hex) + ".json", contents: Data(old.utf8)))
        XCTAssertEqual(store.entries().first?.console?.facts.labels, ["i", "ii", "1"])
        XCTAssertEqual(store.item(hex)?.deck?.labels, ["i", "ii", "1"], "kept in its description")
    }
}
