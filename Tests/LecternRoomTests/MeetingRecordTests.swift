import Foundation
import LecternModel
import LecternProtocol
import XCTest

@testable import LecternRoom

/// The meeting record's core (§26): order, deduplication, polls and clips between pages,
/// bounds, saving.
final class MeetingRecordCoreTests: XCTestCase {
    let ink = [InkStroke(id: 1, author: 1, color: RGB(200, 0, 0), tool: .pen, width: .thick, points: [InkPoint(px: 0.1, py: 0.1), InkPoint(px: 0.9, py: 0.9)])]

    func pages(_ r: MeetingRecord, wall: [InkStroke] = []) -> [String] {
        r.pages(wallStrokes: wall).map { e in
            switch e.item {
            case .page(_, let name, let page, _, let strokes): "\(name)\(page)\(strokes.isEmpty ? "" : "+ink")"
            case .poll(let card): "poll \(card.bars.map(\.count))"
            case .clip(_, let name, _): "clip \(name)"
            case .wall(let w): "\(w.layout) " + w.panes.map(Self.paneName).joined(separator: "|")
            case .share(let name, let source, let duration, _): "share \(name) \(source) \(Int(duration))s"
            }
        }
    }

    static func paneName(_ p: RecordWall.Pane) -> String {
        switch p {
        case .page(_, let name, let page, _, let strokes): "\(name)\(page)\(strokes.isEmpty ? "" : "+ink")"
        case .clip(_, let name): "clip \(name)"
        case .blank(let white): white ? "white" : "black"
        case .empty: "-"
        }
    }

    func view(_ panes: [RecordWall.Pane], _ layout: WallLayout = .split, drivers: [String?]? = nil) -> RecordWall {
        RecordWall(layout: layout, width: 1920, height: 1080, panes: panes, drivers: drivers ?? panes.map { _ in "Ann" })
    }

    func pg(_ deck: String, _ n: Int) -> RecordWall.Pane { .page(content: deck, name: deck, page: n, part: .whole, strokes: []) }

    /// A wall of several panes is one record page (§26.1): it leaves the wall with the ink of
    /// every page in it; the same view again unchanged is not a new page; the cover names
    /// each pane's driver with what was in it.
    func testAWallOfPanesIsOneRecordPageWithEachPagesInk() {
        var r = MeetingRecord()
        show(&r, "A", 1)
        let ink = self.ink
        let inked: MeetingRecord.StrokesOf = { c, p in c == "B" && p == 2 ? ink : [] }
        r.wallShown(view([pg("A", 1), pg("B", 2)], drivers: ["Ann", "Bo"]), presenter: "Ann", at: 2, strokes: { _, _ in [] })
        r.wallShown(view([pg("A", 1), pg("B", 2)], drivers: ["Ann", "Bo"]), presenter: "Ann", at: 3, strokes: inked)   // the same: no change
        r.wallShown(view([pg("A", 2), pg("B", 2)], drivers: ["Ann", "Bo"]), presenter: "Ann", at: 4, strokes: inked)
        XCTAssertEqual(pages(r), ["A1", "split A1|B2+ink", "split A2|B2"])
        let lastWall = r.pages(strokes: inked).map { page -> [String] in
            if case .wall(let w) = page.item { return w.panes.map { Self.paneName($0) } } else { return [] }
        }.last
        XCTAssertEqual(lastWall, ["A2", "B2+ink"])
        XCTAssertEqual(r.count(strokes: inked), 3)
        XCTAssertEqual(r.points, 2, "the ink in the wall's page is counted")
        // The same view with the same ink again: not a new page; back to one page.
        r.wallShown(view([pg("A", 1), pg("B", 2)], drivers: ["Ann", "Bo"]), presenter: "Ann", at: 5, strokes: { _, _ in [] })
        r.pageShown(content: "C", name: "C", page: 1, part: .whole, presenter: "Cy", at: 6, strokes: inked)
        XCTAssertEqual(pages(r), ["A1", "split A1|B2+ink", "split A2|B2", "C1"])
        // Clips, blanks and empty panes; a poll put between keeps the wall on the wall.
        let quad = view([.clip(content: "K", name: "k.mp4"), .blank(white: true), .empty, pg("B", 1)], .quad, drivers: ["Ann", "Bo", nil, "Cy"])
        r.wallShown(quad, presenter: "Ann", at: 7, strokes: inked)
        let onWall = r.onWall   // as the room puts a poll between (RoomCore.recordBetween)
        r.left(strokes: inked)
        r.pollShown(WallCard(title: "Q", bars: [.init(label: "Yes", count: 1)]), presenter: "Ann", at: 8)
        r.putBack(onWall)
        XCTAssertEqual(r.onWall?.item, .wall(quad), "what was on the wall is on it again")
        XCTAssertEqual(pages(r).suffix(3), ["C1", "quad clip k.mp4|white|-|B1", "poll [1]"])
        let who = MeetingRecord.presenters(of: r.pages(strokes: inked))
        XCTAssertEqual(who.map(\.name), ["Ann", "Bo", "Cy"])
        XCTAssertEqual(who[0].shown, ["A", "k.mp4", "Poll: Q"])
        XCTAssertEqual(who[1].shown, ["B"])
        XCTAssertEqual(who[2].shown, ["C", "B"])
    }

    func show(_ r: inout MeetingRecord, _ deck: String, _ page: Int, leaving: [InkStroke] = [], by who: String = "Ann") {
        r.pageShown(content: deck, name: deck, page: page, part: .whole, presenter: who, at: Double(page), leavingStrokes: leaving)
    }

    func testPagesInOrderAPageShownAgainUnchangedOnceAndAgainWithNewInk() {
        var r = MeetingRecord()
        XCTAssertTrue(r.isEmpty)
        show(&r, "A", 1)
        show(&r, "A", 2)
        show(&r, "A", 1)   // A2 leaves without ink
        show(&r, "A", 1)   // the same page: no change
        show(&r, "B", 1)   // A1 again unchanged: not kept twice
        XCTAssertEqual(pages(r), ["A1", "A2", "B1"])
        show(&r, "A", 2, leaving: [])
        show(&r, "B", 1, leaving: ink)   // A2 with ink this time: a new page
        XCTAssertEqual(pages(r), ["A1", "A2", "B1", "A2+ink"])
        XCTAssertEqual(pages(r, wall: ink), ["A1", "A2", "B1", "A2+ink", "B1+ink"], "the page on the wall with its ink now")
        XCTAssertEqual(r.count(wallStrokes: []), 4)
        XCTAssertEqual(r.count(wallStrokes: ink), 5)
    }

    func testAPollKeepsItsLastCountsAndClipsComeInOrder() {
        var r = MeetingRecord()
        show(&r, "A", 1)
        r.pageLeft(strokes: [])
        r.pollShown(WallCard(title: "Q", bars: [.init(label: "Yes", count: 1), .init(label: "No", count: 0)]), presenter: "Ann", at: 5)
        r.pollShown(WallCard(title: "Q", bars: [.init(label: "Yes", count: 4), .init(label: "No", count: 2)]), presenter: "Ann", at: 6)
        r.clipPlayed(content: "C", name: "intro.mp4", duration: 12, presenter: "Bo", at: 7)
        show(&r, "A", 2, by: "Bo")
        XCTAssertEqual(pages(r), ["A1", "poll [4, 2]", "clip intro.mp4", "A2"])
        let who = MeetingRecord.presenters(of: r.pages(wallStrokes: []))
        XCTAssertEqual(who.map(\.name), ["Ann", "Bo"])
        XCTAssertEqual(who[0].shown, ["A", "Poll: Q"])
        XCTAssertEqual(who[1].shown, ["intro.mp4", "A"])
        XCTAssertEqual(r.startedAt, 1)
    }

    func testTheRecordsInkIsBounded() {
        var r = MeetingRecord()
        let points = (0..<1000).map { InkPoint(px: Double($0) / 1000, py: 0.5) }
        let heavy = (0..<50).map { InkStroke(id: UInt32($0), author: 1, color: .black, tool: .pen, width: .thin, points: points) }
        // The same page shown and left again and again, its ink changed each time (one stroke more).
        for n in 1...10 {
            show(&r, "A", 1, leaving: Array(heavy.prefix(n * 5)))
            show(&r, "A", 2, leaving: Array(heavy.prefix(n * 5 - 1)))
        }
        XCTAssertLessThanOrEqual(r.points, MeetingRecord.maxPoints)
        XCTAssertEqual(r.points, MeetingRecord.maxPoints, "filled up to the bound")
        XCTAssertGreaterThan(r.inkDropped, 0)
        XCTAssertEqual(r.entries.count, 19, "every page that left the wall is kept, with the ink that fits")
    }

    func testBoundedAndSavedAndCleared() throws {
        var r = MeetingRecord()
        for n in 1...(MeetingRecord.maxEntries + 5) { show(&r, "D", n) }
        show(&r, "E", 1)
        XCTAssertEqual(r.entries.count, MeetingRecord.maxEntries)
        XCTAssertEqual(r.dropped, 5)
        let back = try JSONDecoder().decode(MeetingRecord.self, from: JSONEncoder().encode(r))
        XCTAssertEqual(back, r)
        r.clear()
        XCTAssertTrue(r.isEmpty)
        XCTAssertNil(r.startedAt)
    }
}

/// The room's side (RoomCore+Record): what goes into the record as the wall changes, the
/// download's job and replies, one at a time, and the idle end of the meeting clearing it.
final class RoomCoreRecordTests: XCTestCase {
    typealias H = RoomCoreHarness

    func present(_ h: H, _ content: ContentID, _ n: UInt32, device: DeviceID) {
        h.shown(h.send(.present(content: content, page: n), from: 1, device: device))
    }

    func testTheJobHasThePagesShownAndThePDFIsSentFromItsFile() throws {
        let h = H(floor: .open, catalog: [deck(1, name: "one.pdf"), deck(2, name: "two.pdf")])
        let ana = h.join(1, name: "Ana")
        let mod = h.join(2, name: "Mo", role: .moderator)
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        h.own(cid(2), from: 1, device: ana)
        present(h, cid(1), 1, device: ana)
        present(h, cid(1), 2, device: ana)
        present(h, cid(2), 1, device: ana)
        present(h, cid(1), 2, device: ana)   // again, unchanged

        XCTAssertEqual(H.errorCode(to: 1, h.send(.recordRequest, from: 1, device: ana)), .recordNotAllowed)
        let asked = h.send(.recordRequest, from: 2, tag: 9, device: mod)
        let jobs = asked.compactMap { if case .makeRecord(let id, let tag, let job) = $0 { return (id, tag, job) } else { return nil } }
        let (id, tag, job) = try XCTUnwrap(jobs.first)
        XCTAssertEqual(id, 2)
        XCTAssertEqual(tag, 9)
        XCTAssertEqual(job.room, "Core Room")
        XCTAssertEqual(
            job.pages.map { if case .deck(let c, _, let p, _, _) = $0 { return "\(c.prefix(2))\(p)" } else { return "?" } },
            ["011", "012", "021"])
        XCTAssertEqual(job.presenters, [RecordJob.Presenter(name: "Ana", shown: ["one.pdf", "two.pdf"])])
        XCTAssertEqual(H.replies(to: 2, asked), [.recordProgress(RecordProgress(done: 0, total: 4))])
        XCTAssertEqual(H.errorCode(to: 2, h.send(.recordRequest, from: 2, device: mod)), .recordBusy, "one at a time")

        // The PDF stays in its file: the shell sends it a piece at a time (RecordSender).
        let pdf = RecordPDF(size: ProtocolLimits.maxChunkLength + 10, file: "the shell's file")
        let made = h.handle(.recordMade(2, tag: 9, .success(pdf)))
        XCTAssertEqual(made.filter { if case .sendRecord = $0 { return true } else { return false } }, [.sendRecord(2, tag: 9, device: mod, pages: 4, pdf)])
        XCTAssertEqual(H.errorCode(to: 2, h.send(.recordRequest, from: 2, device: mod)), .recordBusy, "busy while it is being sent")
        h.handle(.recordSent(2, tag: 9))
        XCTAssertFalse(H.work(h.send(.recordRequest, from: 2, device: mod)).isEmpty, "free again")
        XCTAssertEqual(H.errorCode(to: 2, h.handle(.recordMade(2, tag: 7, .failure(.recordFailed("too slow"))))), .recordFailed)
    }

    /// In the room: a split of two decks is one record page with both, each page with its
    /// ink and each pane's driver; the job carries the wall's look and both decks' files.
    func testTheRoomRecordsTheWallAsItLooked() throws {
        let h = H(floor: .moderated, catalog: [deck(1, name: "one.pdf"), deck(2, name: "two.pdf")])
        let mod = h.join(1, name: "Mo", role: .moderator)
        let ana = h.join(2, name: "Ana")
        let ben = h.join(3, name: "Ben")
        h.shownAll(h.handle(.outputChanged(OutputSnapshot(connected: true, mode: "1024x768@60", width: 1024, height: 768, name: "virtual"))))
        h.shownAll(h.send(.floorRequest, from: 2, device: ana))
        h.shownAll(h.send(.floorModerate(action: .grant, target: ana), from: 1, device: mod))
        h.own(cid(1), from: 2, device: ana)
        h.own(cid(2), from: 3, device: ben)
        h.shownAll(h.send(.present(content: cid(1), page: 1), from: 2, device: ana))
        h.shownAll(h.send(.layoutSet(.split), from: 1, device: mod))
        h.shownAll(h.send(.paneSet(PaneRequest(pane: 1, .assign(ben))), from: 1, device: mod))
        h.shownAll(h.send(.present(content: cid(2), page: 3), from: 3, device: ben))
        let asked = h.send(.recordRequest, from: 1, tag: 9, device: mod)
        let job = try XCTUnwrap(asked.compactMap { if case .makeRecord(_, _, let job) = $0 { return job } else { return nil } }.first)
        guard case .wall(let w)? = job.pages.last else { return XCTFail("\(job.pages)") }
        XCTAssertEqual(w.layout, .split)
        XCTAssertEqual(w.panes.map(MeetingRecordCoreTests.paneName), ["one.pdf1", "two.pdf3"])
        XCTAssertEqual(w.drivers, ["Ana", "Ben"])
        XCTAssertEqual([w.width, w.height], [1024, 768], "the output's shape")
        XCTAssertEqual(job.contents, [cid(1).hex, cid(2).hex])
        XCTAssertEqual(job.background, Config().background)
        XCTAssertEqual(job.presenters.map(\.name), ["Ana", "Ben"])
        XCTAssertEqual(job.presenters.last?.shown, ["two.pdf"])
    }

    /// A clip playing in a pane is in the record's page of the wall (its first frame, as its
    /// poster), the page beside it as it was.
    func testAClipInAPaneIsInTheRecordsPageOfTheWall() throws {
        let pc = RoomCorePaneClipTests(name: "helper", testClosure: { _ in })
        let (h, mod, _, ben, _) = pc.splitRoom()
        pc.benPlays(h, ben)
        let asked = h.send(.recordRequest, from: 1, tag: 9, device: mod)
        let job = try XCTUnwrap(asked.compactMap { if case .makeRecord(_, _, let job) = $0 { return job } else { return nil } }.first)
        guard case .wall(let w)? = job.pages.last else { return XCTFail("\(job.pages)") }
        XCTAssertEqual(w.panes.map(MeetingRecordCoreTests.paneName), ["deck.pdf1", "clip clip4.mp4"])
        XCTAssertEqual(w.drivers, ["Ana", "Ben"])
        XCTAssertTrue(job.contents.contains(cid(4).hex), "the clip's file, for its poster")
    }

    func testTheRoomIdleEndsTheMeetingAndClearsTheRecord() {
        let h = H(floor: .open, catalog: [deck(1)]) { $0.audienceIdleMinutes = 1 }
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        present(h, cid(1), 1, device: ana)
        present(h, cid(1), 2, device: ana)
        XCTAssertEqual(h.core.snapshot(now: h.now).record?.pages, 2)
        h.send(.unregister, from: 1, device: ana)
        h.handle(.closed(1))
        h.handle(.tick)
        h.now += 59
        h.handle(.tick)
        XCTAssertEqual(h.core.snapshot(now: h.now).record?.pages, 2, "kept while the room is empty for less than audience_idle_minutes")
        h.now += 2
        let ended = h.handle(.tick)
        XCTAssertTrue(h.core.record.isEmpty)
        let saved = ended.compactMap { if case .persist(let s) = $0 { return s } else { return nil } }.last
        XCTAssertNotNil(saved)
        XCTAssertNil(saved?.record, "the saved record is cleared too")
    }
}
