import Foundation
import LecternClient
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// A `.pptx` from the presenter's phone in a real headless Chromium (docs/protocol.md §30,
/// the web remote's `conversion-view.js`): "Upload and present" puts its first slide on the
/// wall while the rest converts; the page says "Converting deck.pptx · slide N of 40", that
/// slide 2 is still converting (and why, when Next is tapped), and shows the slide count
/// growing when the whole deck is there.
///
/// The converter is held (SIGSTOP to the processes of this test's own sandboxes) from the
/// moment page 1 is ready until the page has been checked; SIGCONT lets it finish.
final class ConversionPageTests: XCTestCase {
    func testThePresentersPageShowsTheConversionAndTheDeckGrowing() throws {
        let h = try ServiceHarness.web(floor: .open)
        let deck = h.dir + "/deck.pptx"
        try OfficeDocuments.pptx(deck, slides: 40, pictureSize: 1024)
        // Page 1 as LibreOffice exports it, with pictures as they are (as lecternd does).
        let reference = try LibreOfficeReference.convert(deck, outDir: h.dir + "/reference", picturesAsTheyAre: true)
        let sandboxes = h.dir + "/data/convert"
        defer { ProcessTree.signal(SIGCONT, naming: sandboxes) }   // never left held
        let b = try h.browser(width: 390, height: 844)
        try h.joinAndWait(b, name: "Ana's phone")
        try b.type(try XCTUnwrap(b.find("#file-present")), deck)

        // While it converts, before page 1 exists: the page says how far it is.
        try b.poll("the conversion in the page", timeout: 60) {
            let t = try b.text("#conversions")
            return t.contains("Converting deck.pptx") && (t.contains(" of 40") || t.contains("stored, waiting") || t.contains(" s of at most 60 s"))
        }
        try eventually("page 1 ready", timeout: 60, interval: 0.01) { try h.snapshot().conversions?.first?.ready == 1 }
        XCTAssertFalse(ProcessTree.signal(SIGSTOP, naming: sandboxes).isEmpty, "the converter's processes, held")

        // Page 1 on the wall from "Upload and present", while the rest converts.
        try h.assertOutputShows(pdf: reference, page: 1)
        try b.poll("the conversion with its slide count") { try b.text("#conversions").contains("Converting deck.pptx · slide 1 of 40 · slide 1 ready") }
        try b.poll("one page so far") { try b.text("#page-label") == "1 / 1" }
        try b.poll("the next slide is converting") { try b.text("#next-label") == "Next: slide 2 is still converting" }
        try shoot(b, "conversion-first-slide", width: 390, height: 844)
        try b.click("#next")
        try b.poll("why Next waits") { try b.text("#toast").hasPrefix("Slide 2 of deck.pptx is still being converted") }
        XCTAssertEqual(try h.snapshot().screen.page, 1, "the wall stays")

        // The whole deck: the count grows, the conversion line goes.
        ProcessTree.signal(SIGCONT, naming: sandboxes)
        try b.poll("every slide", timeout: 120) { try b.text("#page-label") == "1 / 40" }
        try b.poll("no conversion left") { try b.execute("return document.getElementById('conversions').hidden") as? Bool == true }
        try b.poll("the files list has every slide") { try b.text("#file-list").contains("40 pages") }
        try shoot(b, "conversion-whole-deck", width: 390, height: 844)
        try b.click("#next")
        try b.poll("page 2") { try h.snapshot().screen.page == 2 }
    }
}
