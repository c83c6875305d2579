import Foundation
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// The wall's panes in the web remote (layout-view.js, docs/protocol.md §9.7), in a real
/// headless Chromium against a real service: the moderator picks split and places a
/// second presenter with taps (a phone's way), each presenter's page shows and drives its
/// own pane, and a pane dragged onto another swaps them.
final class WallLayoutPageTests: XCTestCase {
    func testTheModeratorSplitsTheWallAndEachPresenterDrivesTheirPane() throws {
        let h = try ServiceHarness.web(floor: .open)
        let anaDeck = try Fixtures.numberedDeck(count: 3, in: h.dir, name: "ana.pdf")
        let benDeck = try Fixtures.numberedDeck(count: 4, in: h.dir, name: "ben.pdf")

        // Ana takes the floor and shows her deck: the main pane.
        let ana = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(ana, name: "Ana")
        try ana.click("#floor-request")
        try ana.poll("the floor") { try ana.text("#floor-status") == "You have the floor." }
        try ana.type(try XCTUnwrap(ana.find("#file-input")), anaDeck)
        try ana.click("#file-list button[data-action=present]", timeout: 30)
        try ana.poll("Ana's page 1 on the wall") { try h.snapshot().screen.page == 1 }

        let ben = try h.browser(width: 360, height: 740)
        try h.joinAndWait(ben, name: "Ben")
        let benID = try XCTUnwrap(h.device(named: "Ben")).id

        // The moderator picks split, then taps Ben's chip and pane 1.
        let mod = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(mod, name: "Chair", role: .moderator)
        try mod.click("#wall-layouts button[data-wall-layout=split]")
        try mod.poll("two panes on the moderator's map") { try mod.execute("return document.querySelectorAll('#wall-map .wall-pane').length") as? Int == 2 }
        XCTAssertEqual(try h.snapshot().layout?.kind, .split)
        try mod.click("#wall-tray button[data-chip-device='\(benID)']")
        try mod.poll("the hint to tap a pane") { try mod.text("#wall-hint") == "Now tap the pane to put it in." }
        try mod.click("#wall-map .wall-pane[data-pane='1']")
        try mod.poll("Ben drives pane 1") { try h.snapshot().layout?.panes[1].driver == benID }
        try mod.poll("the moderator's map says so") { try mod.text("#wall-map .wall-pane[data-pane='1'] .wall-pane-driver") == "Ben" }

        // Each presenter's page shows its own pane.
        try ben.poll("Ben's page: pane 1") { try ben.text("#wall-you").hasPrefix("You drive pane 1 (right)") }
        XCTAssertEqual(try ben.execute("return document.querySelector('#wall-map .wall-pane.mine').dataset.pane") as? String, "1")
        try ana.poll("Ana's page: pane 0") { try ana.text("#wall-you").hasPrefix("You drive pane 0 (left)") }
        try shoot(mod, "wall-layout-moderator", width: 1366, height: 768)

        // Ben presents from his page: his pane shows it; Ana's pane is untouched.
        try ben.type(try XCTUnwrap(ben.find("#file-input")), benDeck)
        try ben.click("#file-list button[data-action=present]", timeout: 30)
        try ben.poll("Ben's deck in pane 1") { try h.snapshot().layout?.panes[1].screen.pageCount == 4 }
        try ben.poll("Ben's page shows his pane's page") { try ben.text("#page-label") == "1 / 4" }
        try ben.click("#next")
        try ben.poll("Ben's next turns his pane") { try h.snapshot().layout?.panes[1].screen.page == 2 }
        try ben.poll("his page follows") { try ben.text("#page-label") == "2 / 4" }
        XCTAssertEqual(try h.snapshot().layout?.panes[0].screen.page, 1, "Ana's pane is untouched")
        XCTAssertEqual(try ana.text("#page-label"), "1 / 3")
        try shoot(ben, "wall-layout-presenter", width: 360, height: 740)

        // A pane dragged onto another swaps them (the drop as the browser delivers it).
        _ = try mod.execute(
            """
            const dt = new DataTransfer();
            dt.setData('text/plain', 'pane:1');
            const to = document.querySelector("#wall-map .wall-pane[data-pane='0']");
            to.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
            """)
        try mod.poll("swapped: Ben's pane is pane 0") { try h.snapshot().layout?.panes[0].driver == benID }
        try ben.poll("Ben's page follows") { try ben.text("#wall-you").hasPrefix("You drive pane 0 (left)") }
    }

    /// A presenter who drives a pane plays a clip there from their page and steers it with
    /// the clip card, which says which pane has the wall's sound; the moderator's map shows
    /// the clip in its pane (§9.7, §23.1).
    func testAPaneDriverPlaysAClipInTheirPaneAndTheMapShowsIt() throws {
        let h = try ServiceHarness.web(floor: .open)
        let ana = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(ana, name: "Ana")
        try ana.click("#floor-request")
        try ana.poll("the floor") { try ana.text("#floor-status") == "You have the floor." }
        let ben = try h.browser(width: 360, height: 740)
        try h.joinAndWait(ben, name: "Ben")
        let benID = try XCTUnwrap(h.device(named: "Ben")).id
        let mod = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(mod, name: "Chair", role: .moderator)
        try mod.click("#wall-layouts button[data-wall-layout=split]")
        try mod.poll("two panes") { try mod.execute("return document.querySelectorAll('#wall-map .wall-pane').length") as? Int == 2 }
        try mod.click("#wall-tray button[data-chip-device='\(benID)']")
        try mod.click("#wall-map .wall-pane[data-pane='1']")
        try ben.poll("Ben drives pane 1") { try ben.text("#wall-you").hasPrefix("You drive pane 1 (right)") }

        // Ben uploads a clip and plays it: in his pane, with the sound.
        try ben.type(try XCTUnwrap(ben.find("#file-input")), try Fixtures.clip(in: h.dir, color: "blue", seconds: 3, name: "ben.mp4"))
        try ben.click("#file-list button[data-action=play]", timeout: 30)
        try ben.poll("Ben's clip in pane 1") { try h.snapshot().layout?.panes[1].screen.clip?.state == .playing }
        XCTAssertNil(try h.snapshot().layout?.panes[0].screen.clip, "Ana's pane is untouched")
        try ben.poll("Ben's clip card") { try ben.text("#clip-state") == "Playing · in pane 1 · with the sound" }
        XCTAssertEqual(try ben.execute("return document.getElementById('sound-row').hidden") as? Bool, true, "the room's volume is the floor's")
        try mod.poll("the map shows the clip in pane 1") {
            try mod.text("#wall-map .wall-pane[data-pane='1'] .wall-pane-shows") == "▶ ben.mp4 · playing · sound"
        }
        XCTAssertEqual(try mod.execute("return document.querySelector(\"#wall-map .wall-pane[data-pane='1']\").classList.contains('clip')") as? Bool, true)

        // His Pause pauses his pane's clip.
        try ben.click("#clip-toggle")
        try ben.poll("paused") { try h.snapshot().layout?.panes[1].screen.clip?.state == .paused }
        try ben.poll("his card says so") { try ben.text("#clip-toggle") == "Play" }

        // Ana plays a clip in her pane: she has the sound now, Ben's card says his is muted.
        try ana.type(try XCTUnwrap(ana.find("#file-input")), try Fixtures.clip(in: h.dir, color: "red", seconds: 3, name: "ana.mp4"))
        try ana.click("#file-list button[data-action=play]", timeout: 30)
        try ana.poll("Ana's clip in pane 0") { try h.snapshot().layout?.panes[0].screen.clip?.state == .playing }
        try ben.poll("Ben's card: muted") { try ben.text("#clip-state") == "Paused · in pane 1 · muted: pane 0 has the sound" }
        try mod.poll("the map: pane 1 muted") {
            try mod.text("#wall-map .wall-pane[data-pane='1'] .wall-pane-shows") == "▶ ben.mp4 · paused · muted"
        }
        try shoot(ben, "wall-layout-pane-clip", width: 360, height: 740)
        try shoot(mod, "wall-layout-pane-clip-moderator", width: 1366, height: 768)
        // Ben's Play takes the sound back (§23.1).
        try ben.click("#clip-toggle")
        try ben.poll("Ben's pane has the sound") { try h.snapshot().layout?.soundPane == 1 }
    }
}
