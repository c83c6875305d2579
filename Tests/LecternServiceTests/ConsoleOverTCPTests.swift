import Foundation
import LecternClient
import LecternModel
import LecternPipeline
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// The presenter console over real sockets (docs/protocol.md §20): beamer notes decks on
/// the wall as their slide half, notes only for the holder and the moderator, labels and
/// overlay steps, goto by label, wrap-around, the timer through a restart, the overview's
/// thumbnails.
final class ConsoleOverTCPTests: XCTestCase {
    func testTheWallShowsOnlyTheSlideHalfOfABeamerNotesDeckAndTheHolderSeesTheNotesHalf() throws {
        let h = try ServiceHarness(floor: .open)
        let dir = Fixtures.tempDir("beamer")
        let pdf = try Fixtures.beamerNotesDeck(labels: ["1", "2", "2", "3"], in: dir)
        let a = try h.presenter("Ana")
        _ = try a.requestFloor()
        let stored = try a.upload(path: pdf)
        try a.present(stored.content, page: 2)
        let state = try a.state()
        XCTAssertEqual(state.console?.notesLayout, .right, "every page twice as wide: notes on the right, beamer's default")

        // The wall: the slide half, fitted like a page; not one pixel of the notes half.
        let wall = try PNG.decode(a.screenshot())
        let settings = h.service.stage.compositor.settings
        let slideHalf = try Compositor.renderPage(PDFDocument(path: pdf), page: 2, settings: settings, part: .left)
        XCTAssertEqual(PixelCompare.differingPixels(wall, slideHalf), 0, "the wall is the slide half as the pipeline renders it")
        let whole = try h.expectedFrame(pdf: pdf, page: 2)
        XCTAssertGreaterThan(PixelCompare.differingPixels(wall, whole), 100_000, "not the whole double-width page")
        XCTAssertEqual(count(Fixtures.blue, in: wall), 0, "no notes (blue) on the wall")
        XCTAssertGreaterThan(count(Fixtures.red, in: wall), 500_000, "the slide (red) fills the height")

        // The holder's notes half: a picture, blue.
        let notes = try PNG.decode(a.pagePreview(stored.content, page: 2, maxWidth: 480, notesHalf: true))
        XCTAssertGreaterThan(count(Fixtures.blue, in: notes), notes.width * notes.height / 3)
        XCTAssertEqual(count(Fixtures.red, in: notes), 0)
        // The "next slide" preview is the slide half, as the wall will show it.
        let next = try PNG.decode(a.pagePreview(stored.content, page: 3, maxWidth: 480))
        XCTAssertEqual(count(Fixtures.blue, in: next), 0)

        // Another presenter sees neither the notes half nor the notes.
        let b = try h.presenter("Ben")
        XCTAssertServerError(.notYourContent, try b.pagePreview(stored.content, page: 2, maxWidth: 480, notesHalf: true))
        _ = try b.upload(path: pdf)   // even with the file
        XCTAssertServerError(.notesPrivate, try b.pagePreview(stored.content, page: 2, maxWidth: 480, notesHalf: true))
        XCTAssertServerError(.notesPrivate, try b.notes(stored.content, page: 2))

        // Switched by hand to "no notes": the whole page goes on the wall at once.
        _ = try a.request(.notesLayout(content: stored.content, layout: NotesLayout.none))
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(a.screenshot()), whole), 0)
        XCTAssertEqual(try a.state().console?.notesLayout, NotesLayout.none)
        XCTAssertServerError(.wrongKind, try a.pagePreview(stored.content, page: 2, maxWidth: 480, notesHalf: true))
        _ = try a.request(.notesLayout(content: stored.content, layout: nil))   // detect again
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(a.screenshot()), slideHalf), 0)
    }

    func testNotesReachTheHolderAndTheModeratorAndNeverAnotherDevice() throws {
        let h = try ServiceHarness(floor: .open)
        let dir = Fixtures.tempDir("notes")
        let labels = ["1", "2", "2", "3", "4"]
        let pdf = try Fixtures.labelledDeck(labels: labels, in: dir)
        let secret = "Secret: the budget is 42k"
        let pdfpc = """
            {"pdfpcFormat": 2, "duration": 20, "lastMinutes": 3,
             "pages": [{"idx": 0, "label": "1", "overlay": 0, "note": "Welcome everyone"},
                       {"idx": 1, "label": "2", "overlay": 0, "note": "\(secret)"},
                       {"idx": 3, "label": "3", "overlay": 0, "note": "Demo time"}]}
            """
        let a = try h.presenter("Ana")
        let b = try h.presenter("Ben")
        let m = try h.moderator()
        _ = try a.requestFloor()
        let stored = try a.upload(path: pdf)
        try a.present(stored.content, page: 1)
        _ = try a.request(.notesFile(content: stored.content, file: Array(pdfpc.utf8)))

        // The holder: the page's note, the overlay's second step shows the slide's note.
        XCTAssertEqual(try a.notes(stored.content, page: 1).pages.map(\.text), ["Welcome everyone"])
        XCTAssertEqual(try a.notes(stored.content, page: 3).pages.first?.text, secret, "step 2 of slide 2 shows slide 2's note")
        let all = try a.notes(stored.content, page: 0)
        XCTAssertEqual(all.pages.map(\.label), labels)
        XCTAssertEqual(all.durationMinutes, 20)
        // The .pdfpc file's length set the (not yet started) timer.
        let timer = try XCTUnwrap(try a.state().console?.timer)
        XCTAssertEqual(timer.mode, .countdown)
        XCTAssertEqual(timer.durationMs, 20 * 60_000)
        XCTAssertEqual(timer.warnMinutes, 3)

        // The moderator reads them, and types notes of their own (typed notes belong to
        // their author: the holder doesn't get the moderator's, issue 25 finding 7).
        XCTAssertEqual(try m.notes(stored.content, page: 2).pages.first?.text, secret)
        _ = try m.request(.notesEdit(NotesEdit(content: stored.content, page: 5, text: "Thank you ✓")))
        XCTAssertEqual(try m.notes(stored.content, page: 5).pages.first?.text, "Thank you ✓")
        XCTAssertEqual(try m.notes(stored.content, page: 5).pages.first?.source, "typed")
        XCTAssertEqual(try a.notes(stored.content, page: 5).pages.first?.text, "")

        // Another presenter: refused, and never sent a note in any message.
        XCTAssertServerError(.notesPrivate, try b.notes(stored.content, page: 2))
        XCTAssertServerError(.notesPrivate, try b.request(.notesEdit(NotesEdit(content: stored.content, page: 2, text: "x"))))
        XCTAssertServerError(.notesPrivate, try b.request(.notesFile(content: stored.content, file: Array(pdfpc.utf8))))
        try a.control(.next)
        _ = try b.state()
        var seen: [Message] = []
        while let e = b.nextEvent(timeout: 0.3) { seen.append(e) }
        XCTAssertFalse(seen.isEmpty, "b got state pushes")
        for msg in seen {
            let bytes = String(decoding: msg.encodeBody(), as: UTF8.self)
            XCTAssertFalse(bytes.contains("budget") || bytes.contains("Welcome") || bytes.contains("Thank you"), "a note reached Ben: \(bytes)")
        }

        // A .pdfpc file for another deck is refused, the notes stay.
        let other = #"{"pdfpcFormat": 2, "pages": [{"idx": 40, "label": "41", "note": "x"}]}"#
        XCTAssertServerError(.badNotesFile, try a.request(.notesFile(content: stored.content, file: Array(other.utf8))))
        XCTAssertEqual(try a.notes(stored.content, page: 1).pages.first?.text, "Welcome everyone")

        // Once Ana gives the floor up (the wall goes idle), her notes are closed to her too;
        // Ben gets the floor and shows the deck from his own copy of the file: the .pdfpc
        // file's notes stay with the file, so he reads them (not the moderator's typed note).
        _ = try a.request(.floorRelease)
        XCTAssertServerError(.notesPrivate, try a.notes(stored.content, page: 1))
        _ = try b.requestFloor()
        _ = try b.upload(path: pdf)
        try b.present(stored.content, page: 1)
        XCTAssertEqual(try b.notes(stored.content, page: 1).pages.first?.text, "Welcome everyone", "the deck on screen: the file's notes")
        XCTAssertEqual(try b.notes(stored.content, page: 5).pages.first?.text, "")
    }

    func testPDFTextAnnotationsAreNotes() throws {
        let h = try ServiceHarness(floor: .open)
        let pdf = try Fixtures.annotatedDeck(in: Fixtures.tempDir("annots"), notes: ["Mention the pilot", "Ask for questions"])
        let a = try h.presenter("Ana")
        _ = try a.requestFloor()
        let stored = try a.upload(path: pdf)
        try a.present(stored.content, page: 1)
        XCTAssertEqual(try a.state().console?.hasNotes, true)
        let n = try a.notes(stored.content, page: 0)
        XCTAssertEqual(n.pages.map(\.text), ["Mention the pilot\n\nAsk for questions", ""])
        XCTAssertEqual(n.pages.map(\.source), ["annotation", "none"])
        // A typed note wins over the annotation.
        _ = try a.request(.notesEdit(NotesEdit(content: stored.content, page: 1, text: "Typed")))
        XCTAssertEqual(try a.notes(stored.content, page: 1).pages.first?.text, "Typed")
    }

    func testLabelsStepsGotoByLabelAndWrapAround() throws {
        let h = try ServiceHarness(floor: .open) { $0.wrapAround = true }
        let pdf = try Fixtures.beamerNotesDeck(labels: ["i", "ii", "1", "2", "2", "2", "3"], in: Fixtures.tempDir("labels"))
        let a = try h.presenter("Ana")
        _ = try a.requestFloor()
        let stored = try a.upload(path: pdf)
        try a.present(stored.content, page: 5)
        XCTAssertEqual(try a.state().console?.slide, SlideSnapshot(label: "2", index: 4, count: 5, step: 2, steps: 3))
        _ = try a.request(.gotoLabel("ii"))
        XCTAssertEqual(try a.state().screen.page, 2)
        _ = try a.request(.gotoLabel("2"))
        XCTAssertEqual(try a.state().screen.page, 4, "the slide's first step")
        XCTAssertServerError(.unknownLabel, try a.request(.gotoLabel("9")))
        // The wall followed, as the slide half.
        let settings = h.service.stage.compositor.settings
        let expected = try Compositor.renderPage(PDFDocument(path: pdf), page: 4, settings: settings, part: .left)
        XCTAssertEqual(PixelCompare.differingPixels(try PNG.decode(a.screenshot()), expected), 0)
        // Wrap-around: next on the last page is the first.
        try a.control(.goto(page: 7))
        try a.control(.next)
        XCTAssertEqual(try a.state().screen.page, 1)
        try a.control(.prev)
        XCTAssertEqual(try a.state().screen.page, 7)
        XCTAssertEqual(try a.state().console?.wrap, true)
        // A non-holder can't jump.
        let b = try h.presenter("Ben")
        XCTAssertServerError(.floorTaken, try b.request(.gotoLabel("1")))
    }

    func testTheTimerIsTheSameOnEveryDeviceAndSurvivesARestart() throws {
        let data = Fixtures.tempDir("timer") + "/data"
        var h: ServiceHarness? = try ServiceHarness(floor: .open) { $0.dataDir = data }
        let a = try h!.presenter("Ana")
        let b = try h!.presenter("Ben")
        _ = try a.requestFloor()
        XCTAssertServerError(.floorTaken, try b.request(.timer(TimerCommand(action: .start))))
        _ = try a.request(.timer(TimerCommand(action: .start, mode: .countdown, warnMinutes: 2, value: 20 * 60_000)))
        let seenByB = try b.waitForState { $0.console?.timer.running == true }.console!.timer
        XCTAssertEqual(seenByB.mode, .countdown)
        XCTAssertEqual(seenByB.durationMs, 20 * 60_000)
        XCTAssertEqual(seenByB.warnMinutes, 2)
        XCTAssertFalse(seenByB.warning)
        let before = try a.state().console!.timer
        XCTAssertServerError(.badTimer, try a.request(.timer(TimerCommand(action: .set, mode: .countdown, value: 0))))
        let m = try h!.moderator()
        _ = try m.request(.timer(TimerCommand(action: .set, warnMinutes: 25)))   // the moderator may steer it
        XCTAssertTrue(try a.waitForState { $0.console?.timer.warning == true }.console!.timer.warning, "25 of 20 minutes: warning")
        _ = try m.request(.timer(TimerCommand(action: .set, warnMinutes: 2)))

        // The service restarts: the talk's timer runs on from where it was.
        a.close(); b.close(); m.close()
        h = nil
        h = try ServiceHarness(floor: .open) { $0.dataDir = data }
        let c = try h!.presenter("Chen")
        let after = try c.state().console!.timer
        XCTAssertEqual(after.mode, .countdown)
        XCTAssertEqual(after.durationMs, 20 * 60_000)
        XCTAssertTrue(after.running)
        XCTAssertGreaterThanOrEqual(after.elapsedMs, before.elapsedMs)
        XCTAssertLessThan(after.elapsedMs, before.elapsedMs + 60_000)
        let d = try h!.moderator()
        _ = try d.request(.timer(TimerCommand(action: .pause)))
        let paused = try d.state().console!.timer
        XCTAssertFalse(paused.running)
        XCTAssertEqual(try c.waitForState { $0.console?.timer.running == false }.console!.timer.elapsedMs, paused.elapsedMs, "a second device agrees")
        _ = try d.request(.timer(TimerCommand(action: .reset)))
        XCTAssertEqual(try d.state().console!.timer.elapsedMs, 0)
    }

    func testOverviewThumbnailsAreTheWallsFramesScaledDown() throws {
        let h = try ServiceHarness(floor: .open)
        let pdf = try Fixtures.beamerNotesDeck(labels: ["1", "2", "3", "4"], in: Fixtures.tempDir("overview"))
        let a = try h.presenter("Ana")
        _ = try a.requestFloor()
        let stored = try a.upload(path: pdf)
        for page in 1...4 {
            try a.present(stored.content, page: UInt32(page))
            let wall = try PNG.decode(a.screenshot())
            let thumb = try PNG.decode(a.pagePreview(stored.content, page: UInt32(page), maxWidth: 320))
            XCTAssertEqual([thumb.width, thumb.height], [320, 180])
            let scaled = wall.scaled(width: 320, height: 180)
            let mean = PixelCompare.meanDifference(thumb, PixelRect(x: 0, y: 0, width: 320, height: 180), scaled)
            XCTAssertLessThan(mean, 6, "page \(page): the thumbnail is the wall's frame scaled down (mean difference \(mean))")
            let other = try PNG.decode(a.pagePreview(stored.content, page: UInt32(page % 4 + 1), maxWidth: 320))
            XCTAssertGreaterThan(PixelCompare.differingPixels(thumb, other), 0, "each page its own thumbnail")
        }
        // Cached: asking again renders nothing new.
        let renders = h.service.stage.compositor.cache.statistics.insertions
        _ = try a.pagePreview(stored.content, page: 2, maxWidth: 320)
        XCTAssertEqual(h.service.stage.compositor.cache.statistics.insertions, renders)
    }

    private func count(_ c: RGB, in f: Frame) -> Int {
        var n = 0
        for y in 0..<f.height {
            for x in 0..<f.width {
                let p = f.pixel(x: x, y: y)
                if abs(Int(p.r) - Int(c.r)) < 12, abs(Int(p.g) - Int(c.g)) < 12, abs(Int(p.b) - Int(c.b)) < 12 { n += 1 }
            }
        }
        return n
    }

    /// Issue 25, finding 7, over TLS as shipped: a second presenter who uploads the same
    /// PDF (the viewers' download link) types notes of their own; they neither replace the
    /// author's nor, holding the floor with the deck on the wall, read them.
    func testTypedNotesBelongToTheirAuthorNotToTheFileOverTLS() throws {
        let h = try ServiceHarness(floor: .open) { $0.tls = true }
        let tls = ClientTLS.pinned(try XCTUnwrap(h.service.tlsIdentity?.fingerprint))
        func presenter(_ name: String) throws -> LecternConnection {
            let c = try LecternConnection(host: "127.0.0.1", port: h.port, tls: tls)
            try c.register(name: name, role: .presenter, passcode: ServiceHarness.presenterPass)
            return c
        }
        let pdf = try Fixtures.numberedDeck(count: 3, in: Fixtures.tempDir("notes-author"))
        let ana = try presenter("Ana")
        let content = try ana.upload(path: pdf).content
        _ = try ana.request(.notesEdit(NotesEdit(content: content, page: 1, text: "Ana: the budget is 42k")))
        let eve = try presenter("Eve")
        XCTAssertEqual(try eve.upload(path: pdf).content, content, "the same stored file")
        _ = try eve.request(.notesEdit(NotesEdit(content: content, page: 1, text: "Eve's own")))
        _ = try eve.requestFloor()
        try eve.present(content, page: 1)
        let seen = try eve.notes(content, page: 0)
        XCTAssertEqual(seen.pages.map(\.text), ["Eve's own", "", ""])
        XCTAssertFalse("\(seen)".contains("42k"), "Eve read Ana's note")
        _ = try ana.requestFloor()
        XCTAssertEqual(try ana.notes(content, page: 1).pages.first?.text, "Ana: the budget is 42k", "Ana's note as she typed it")
        // A restart keeps each author's notes with the upload; Ana resumes as herself, her
        // deck on the wall again (who uploaded what is not kept across a restart: the deck on
        // the wall is what lets its holder read its notes then).
        try ana.present(content, page: 1)
        let token = try XCTUnwrap(ana.registration?.resumeToken)
        ana.close()
        eve.close()
        try h.restart()
        let again = try LecternConnection(host: "127.0.0.1", port: h.port, tls: tls)
        try again.register(name: "Ana", role: .presenter, passcode: ServiceHarness.presenterPass, resumeToken: token)
        XCTAssertEqual(try again.notes(content, page: 1).pages.first?.text, "Ana: the budget is 42k")
    }
}
