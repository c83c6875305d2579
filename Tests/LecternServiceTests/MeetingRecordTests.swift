import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
import LecternRoom
import LecternService
import LecternTestSupport
import XCTest

/// Issue 18, must 1: the meeting record (docs/protocol.md §26) over real sockets, drawn by
/// the real record worker, checked with poppler's command-line tools.
final class MeetingRecordTests: XCTestCase {
    /// A 4:3 deck whose every page has its name as vector text near the top (where no ink goes).
    static func deck(_ title: String, pages: Int, in dir: String) throws -> String {
        try Fixtures.pdf(
            (1...pages).map { n in
                PDFSketch.Page(
                    width: 720, height: 540, boxes: [.init(x: 0.05, y: 0.85, width: 0.2, height: 0.1, color: Fixtures.green)],
                    texts: [.init("\(title) page \(n)", x: 0.1, y: 0.1, size: 0.08, bold: true)])
            }, in: dir, name: "\(title).pdf")
    }

    static func pdfPages(_ pdf: String) throws -> Int {
        let r = try Fixtures.run("pdfinfo", [pdf])
        XCTAssertEqual(r.status, 0, r.err)
        let line = String(decoding: r.out, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("Pages:") } ?? ""
        return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? -1
    }

    static func text(_ pdf: String, page: Int) throws -> String {
        let r = try Fixtures.run("pdftotext", ["-f", "\(page)", "-l", "\(page)", "-layout", pdf, "-"])
        XCTAssertEqual(r.status, 0, r.err)
        return String(decoding: r.out, as: UTF8.self)
    }

    static func save(_ data: Data, _ dir: String, _ name: String = "record.pdf") throws -> String {
        let path = dir + "/" + name
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A line of ink across the lower half of the page: y = 0.7 of the page, x 0.2…0.8.
    static let inkPoints = [InkPoint(px: 0.2, py: 0.7), InkPoint(px: 0.5, py: 0.7), InkPoint(px: 0.8, py: 0.7)]
    static let inkIndex: UInt8 = 3

    func close(_ a: RGB, _ b: RGB, _ tolerance: Int = 40) -> Bool {
        abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance && abs(Int(a.b) - Int(b.b)) <= tolerance
    }

    func testAMeetingOfTwoDecksInkAPollAndAClipIsOnePDFOfWhatWasShownInOrder() throws {
        let h = try ServiceHarness(floor: .open, room: "Board Room")
        let alpha = try Self.deck("Alpha", pages: 3, in: h.dir)
        let beta = try Self.deck("Beta", pages: 2, in: h.dir)
        let clip = try Fixtures.clip(in: h.dir, color: "red", seconds: 1, name: "intro.mp4")

        let alice = try h.presenter("Alice")
        _ = try alice.requestFloor()
        let a = try alice.upload(path: alpha).content
        try alice.present(a, page: 1)
        try alice.control(.next)
        try alice.draw(Self.inkPoints, width: .thick, colorIndex: Self.inkIndex)
        try alice.control(.next)
        try alice.control(.prev)   // page 2 again, its ink unchanged: not a new page of the record
        try alice.control(.next)
        _ = try alice.request(.pollAsk(PollDraft(question: "Ship it this week?", kind: .yesno)))
        _ = try alice.request(.pollClose(poll: 0))
        _ = try alice.request(.pollShow(PollShow(poll: 0, results: true, answer: false)))
        _ = try alice.request(.pollShow(PollShow(poll: 0, results: false, answer: false)))
        let c = try alice.upload(path: clip).content
        _ = try alice.request(.clipPlay(content: c, loop: false))
        _ = try alice.waitForState { $0.screen.clip != nil }
        _ = try alice.request(.clipStop)
        _ = try alice.waitForState { $0.screen.clip == nil }
        _ = try alice.request(.floorRelease)

        let bob = try h.presenter("Bob")
        _ = try bob.requestFloor()
        let b = try bob.upload(path: beta).content
        try bob.present(b, page: 1)
        XCTAssertEqual(try bob.request(.ink(.whiteboard(black: false))), .presentOK)
        try bob.draw(Self.inkPoints, width: .thick, colorIndex: Self.inkIndex)
        XCTAssertEqual(try bob.upload(path: alpha).content, a)   // Bob has the deck too (the appliance has it already)
        try bob.present(a, page: 1)   // Alpha 1 again, unchanged: not repeated

        // A presenter may not download it (record_presenters is false by default).
        XCTAssertServerError(.recordNotAllowed, try bob.meetingRecord())

        let mod = try h.moderator()
        var steps: [Int] = []
        let (pdfData, pages) = try mod.meetingRecord { done, total in
            XCTAssertEqual(total, 8)
            steps.append(done)
        }
        XCTAssertEqual(steps.first, 0)
        XCTAssertEqual(steps.last, 8, "progress up to the last page")
        let pdf = try Self.save(pdfData, h.dir)
        // To look at it: LECTERN_KEEP_RECORD=/tmp/record.pdf
        if let keep = ProcessInfo.processInfo.environment["LECTERN_KEEP_RECORD"] { try? pdfData.write(to: URL(fileURLWithPath: keep)) }
        XCTAssertEqual(pages, 8)
        // cover, Alpha 1, Alpha 2 (ink), Alpha 3, the poll, the clip, Beta 1, the whiteboard (ink)
        XCTAssertEqual(try Self.pdfPages(pdf), 8)
        let cover = try Self.text(pdf, page: 1)
        for s in ["Meeting record", "Board Room", "Alice", "Alpha.pdf", "intro.mp4", "Bob", "Beta.pdf", "Whiteboard"] {
            XCTAssertTrue(cover.contains(s), "cover lacks \(s): \(cover)")
        }
        XCTAssertLessThan(cover.range(of: "Alice")!.lowerBound, cover.range(of: "Bob")!.lowerBound, "presenters in order")
        // The decks' own text, as text: the pages are vectors, not pictures.
        let expected = [2: "Alpha page 1", 3: "Alpha page 2", 4: "Alpha page 3", 5: "Ship it this week?", 6: "intro.mp4", 7: "Beta page 1"]
        for (page, s) in expected {
            let text = try Self.text(pdf, page: page)
            XCTAssertTrue(text.contains(s), "page \(page) lacks \(s): \(text)")
        }
        XCTAssertFalse(try Self.text(pdf, page: 3).contains("Alpha page 1"))
        XCTAssertTrue(try Self.text(pdf, page: 6).contains("0:01"), "the clip's duration")

        // The ink where it was drawn on Alpha 2, and not on Alpha 1 (shown before it was drawn).
        let ink = try XCTUnwrap(InkPalette.color(index: Self.inkIndex))
        let inked = try Fixtures.pdftoppm(pdf, page: 3, width: 720, height: 540)
        let clean = try Fixtures.pdftoppm(pdf, page: 2, width: 720, height: 540)
        XCTAssertTrue(close(inked.pixel(x: 360, y: 378), ink), "\(inked.pixel(x: 360, y: 378)) is not the ink \(ink)")
        XCTAssertTrue(close(inked.pixel(x: 200, y: 378), ink))
        XCTAssertTrue(close(clean.pixel(x: 360, y: 378), .white), "Alpha 1 had no ink")
        XCTAssertTrue(close(inked.pixel(x: 360, y: 300), .white), "nothing above the line")
        // The deck's page at its own size (720×540 pt), the green box where the deck has it.
        XCTAssertTrue(close(inked.pixel(x: 100, y: 490), Fixtures.green))
        // The clip's page shows its first frame (red).
        let clipPage = try Fixtures.pdftoppm(pdf, page: 6, width: 960, height: 540)
        XCTAssertTrue(close(clipPage.pixel(x: 480, y: 220), RGB(254, 0, 0), 60), "\(clipPage.pixel(x: 480, y: 220))")
        // The whiteboard with Bob's line across it.
        let board = try Fixtures.pdftoppm(pdf, page: 8, width: 960, height: 540)
        XCTAssertTrue(close(board.pixel(x: 480, y: 378), ink), "\(board.pixel(x: 480, y: 378))")
        XCTAssertTrue(close(board.pixel(x: 480, y: 200), .white))
        // The poll's page: the wall's card (white panel) on its own page.
        let pollPage = try Fixtures.pdftoppm(pdf, page: 5, width: 960, height: 540)
        XCTAssertTrue(close(pollPage.pixel(x: 480, y: 500), .white))

        // A second download gives the same pages; the state counts them (cover not counted).
        XCTAssertEqual(try mod.state().record, RecordSnapshot(on: true, pages: 7, presentersMayDownload: false))

        // The end of the meeting clears it (§27): the wall goes idle, the next meeting's record is empty.
        _ = try mod.request(.audienceSet(.endMeeting))
        let next = try h.moderator()
        XCTAssertEqual(try next.state().record?.pages, 0)
        XCTAssertServerError(.recordEmpty, try next.meetingRecord())
        let saved = try String(contentsOfFile: h.dir + "/data/state.json", encoding: .utf8)
        XCTAssertFalse(saved.contains("Ship it this week?"), "the saved record is cleared too")
    }

    func testRecordOffKeepsNothingAndPresentersMayDownloadWhenAllowed() throws {
        let off = try ServiceHarness(floor: .open) { $0.record = false }
        let deck = try Self.deck("Gamma", pages: 2, in: off.dir)
        let a = try off.presenter("Ann")
        _ = try a.requestFloor()
        try a.present(try a.upload(path: deck).content)
        try a.control(.next)
        let mod = try off.moderator()
        XCTAssertServerError(.recordOff, try mod.meetingRecord())
        XCTAssertEqual(try mod.state().record, RecordSnapshot(on: false, pages: 0, presentersMayDownload: false))
        let saved = try String(contentsOfFile: off.dir + "/data/state.json", encoding: .utf8)
        XCTAssertFalse(saved.contains("\"record\""), saved)

        let on = try ServiceHarness(floor: .open) { $0.recordPresenters = true }
        let p = try on.presenter("Pat")
        XCTAssertServerError(.recordEmpty, try p.meetingRecord())
        _ = try p.requestFloor()
        try p.present(try p.upload(path: try Self.deck("Delta", pages: 1, in: on.dir)).content)
        let other = try on.presenter("Quinn")   // not holding the floor: allowed all the same
        let (pdf, pages) = try other.meetingRecord()
        XCTAssertEqual(pages, 2)
        XCTAssertTrue(try Self.text(try Self.save(pdf, on.dir), page: 2).contains("Delta page 1"))

        // No moderator passcode: whoever leads may, the others not.
        let bare = try ServiceHarness(floor: .open) { $0.moderatorPasscode = nil }
        let lead = try bare.presenter("Lee")
        _ = try lead.requestFloor()
        try lead.present(try lead.upload(path: try Self.deck("Theta", pages: 1, in: bare.dir)).content)
        let guest = try bare.presenter("Gus")
        XCTAssertEqual(try guest.state().record, RecordSnapshot(on: true, pages: 1, presentersMayDownload: false, leadMayDownload: true))
        XCTAssertServerError(.recordNotAllowed, try guest.meetingRecord())
        XCTAssertEqual(try lead.meetingRecord().pages, 2)
    }

    /// A deck damaged on disk after it was shown (hostile or a failing card): the record is
    /// still made, that page saying it could not be drawn, the others as they were.
    func testADeckDamagedSinceIsAPageSayingSoNotAFailedRecord() throws {
        let h = try ServiceHarness(floor: .open)
        let good = try Self.deck("Zeta", pages: 1, in: h.dir)
        let bad = try Self.deck("Eta", pages: 2, in: h.dir)
        let a = try h.presenter("Ann")
        _ = try a.requestFloor()
        let eta = try a.upload(path: bad).content
        try a.present(eta, page: 1)
        try a.present(try a.upload(path: good).content)
        try Data("%PDF-1.4 this is no longer a PDF".utf8).write(to: h.service.store.directory.appendingPathComponent(eta.hex))
        let (pdf, pages) = try h.moderator().meetingRecord()
        XCTAssertEqual(pages, 3)
        let path = try Self.save(pdf, h.dir)
        let damaged = try Self.text(path, page: 2)
        XCTAssertTrue(damaged.contains("could not be drawn") && damaged.contains("Eta.pdf, page 1"), damaged)
        XCTAssertTrue(try Self.text(path, page: 3).contains("Zeta page 1"))
    }

    /// kill -9 loses nothing: the record is in state.json after every change; and `lectern record -o`.
    func testTheRecordSurvivesKill9AndTheCLIDownloadsIt() throws {
        let s = ApplianceServiceTests.Setup()
        try s.writeConfig(passcode: "record-restart-pass", room: "Record Room")
        var (p, port) = try s.start()
        let a = try LecternConnection(host: "127.0.0.1", port: port, tls: ClientTLS { _ in true })   // lecternd on its defaults: TLS
        try a.register(name: "Alice", role: .presenter, passcode: "record-restart-pass")
        _ = try a.requestFloor()
        let deck = try Self.deck("Epsilon", pages: 3, in: s.dir)
        let content = try a.upload(path: deck).content
        try a.present(content)
        try a.draw(Self.inkPoints, width: .thick, colorIndex: Self.inkIndex)
        try a.control(.next)
        try a.control(.next)
        try eventually("state.json with the record's three pages", timeout: 10) {
            guard let data = FileManager.default.contents(atPath: s.dir + "/data/state.json") else { return false }
            return (try? JSONDecoder().decode(SavedState.self, from: data))?.record?.count == 3
        }
        p.kill(SIGKILL)
        XCTAssertEqual(p.waitForExit(), SIGKILL)
        (p, port) = try s.start()
        defer { p.kill(SIGTERM); _ = p.waitForExit() }

        let out = s.dir + "/meeting.pdf"
        let r = try Fixtures.run(
            "env",
            [
                "LECTERN_MODERATOR_PASSCODE=appliance-moderator", "LECTERN_SESSION_FILE=\(s.dir)/session-cli", "LECTERN_KNOWN_ROOMS=\(s.dir)/known-rooms",
                "PATH=/usr/bin:/bin",
                try Fixtures.binary("lectern"), "record", "-o", out, "--port", "\(port)", "--name", "Mod", "--moderator",
            ])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(String(decoding: r.out, as: UTF8.self).contains("4 pages"), String(decoding: r.out, as: UTF8.self))
        XCTAssertEqual(try Self.pdfPages(out), 4)
        for n in 1...3 { XCTAssertTrue(try Self.text(out, page: n + 1).contains("Epsilon page \(n)")) }
        let inked = try Fixtures.pdftoppm(out, page: 2, width: 720, height: 540)
        XCTAssertTrue(close(inked.pixel(x: 360, y: 378), try XCTUnwrap(InkPalette.color(index: Self.inkIndex))), "the ink came back with the record")
        XCTAssertTrue(try Self.text(out, page: 1).contains("Alice"))
    }
}
