import Foundation
import LecternModel
import LecternDisplay
import LecternPipeline
import LecternRender
import LecternService
import LecternTestSupport
import XCTest

/// What keeps a slow page from holding the output: shows overtaken by newer ones never
/// reach it, the heartbeat asks the display loop without rendering, and the
/// store lets opened documents go.
final class StageTicketTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = Fixtures.tempDir("stage-ticket") }

    /// A stage without a page cache (every show of a page renders it).
    func makeStage(openDocuments: Int = 4) throws -> (Stage, ContentStore, String) {
        let store = try ContentStore(dataDir: dir + "/data", openDocuments: openDocuments)
        let item = try store.add(fileAt: try Fixtures.numberedDeck(count: 3, in: dir))
        let compositor = Compositor(
            settings: .init(width: 640, height: 360), idle: IdleScreen(room: "R", addresses: [], port: 7420),
            cacheBytes: 0, budget: 4, documents: { try store.document($0) })
        return (Stage(output: VirtualDisplay(mode: DisplayMode(width: 640, height: 360, refresh: 60)), compositor: compositor), store, item.id)
    }

    func testAShowOvertakenByANewerTicketPresentsNothing() throws {
        let (stage, _, id) = try makeStage()
        try stage.show(.page(content: id, page: 1))
        let old = stage.ticket()
        let new = stage.ticket()
        XCTAssertThrowsError(try stage.show(.blank(.white), ticket: old)) { XCTAssertTrue($0 is ShowSuperseded, "\($0)") }
        XCTAssertEqual(stage.scene, .page(content: id, page: 1), "the overtaken show changed nothing")
        XCTAssertFalse(stage.screenshot().isUniform(stage.screenshot().bounds, .white))
        try stage.show(.blank(.white), ticket: new)
        XCTAssertTrue(stage.screenshot().isUniform(stage.screenshot().bounds, .white))
    }

    /// The watchdog asks the display loop (issue 26): the loop answers, rendering nothing and
    /// presenting nothing for it (it presents only what changed).
    func testTheHeartbeatAsksTheDisplayLoopWithoutRenderingOrPresenting() throws {
        let (stage, _, id) = try makeStage()
        try stage.show(.page(content: id, page: 2))
        let renders = stage.compositor.renderCount
        let presents = stage.output.presentCount
        for _ in 0..<3 { try stage.heartbeat() }
        XCTAssertEqual(stage.output.presentCount, presents, "the loop presents only what changed")
        XCTAssertEqual(stage.compositor.renderCount, renders, "no page rendered again (the cache is off)")
    }

    func testTheStoreKeepsOnlyTheMostRecentlyUsedDocumentsOpen() throws {
        let store = try ContentStore(dataDir: dir + "/data", openDocuments: 2)
        let ids = try (1...3).map { n in try store.add(fileAt: try Fixtures.numberedDeck(count: n, in: dir, name: "d\(n).pdf")).id }
        let first = try store.document(ids[0])
        _ = try store.document(ids[1])
        XCTAssertTrue(try store.document(ids[0]) === first, "kept while among the 2 most recent")
        _ = try store.document(ids[2])   // lets ids[1] go: ids[0] was used more recently
        XCTAssertEqual(store.openCount, 2)
        XCTAssertTrue(try store.document(ids[0]) === first)
        store.forget(ids[0])
        XCTAssertFalse(try store.document(ids[0]) === first, "opened afresh after forget")
    }
}
