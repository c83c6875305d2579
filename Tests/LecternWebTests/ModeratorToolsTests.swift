import Foundation
import LecternClient
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// The moderator's rough edges (issue 27, Why 6), in real Chromium against a real service:
/// a seat always kept for the moderator, the queue in view on a laptop, Grant over a live
/// presenter asking first, and hand-over and take-back from the pages.
final class ModeratorToolsTests: XCTestCase {
    /// `max_clients` = 2 with two presenters in: a third is refused, the moderator still
    /// comes in (the place kept for a moderator, §8.1), removes one, and the third gets in.
    func testAModeratorEntersAFullRoomAndRemovesSomeone() throws {
        let h = try ServiceHarness.web(floor: .moderated) { $0.maxClients = 2 }
        let ana = try h.presenter("Ana"), ben = try h.presenter("Ben")
        let cem = try h.browser(width: 390, height: 844)
        try h.join(cem, name: "Cem")
        try cem.poll("roomFull") { try cem.text("#login-error") == LecternError.roomFull(capacity: 2).message }

        let mod = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(mod, name: "Chair", role: .moderator)
        XCTAssertEqual(try h.snapshot().devices.count, 3, "two presenters and the moderator")
        try mod.poll("the people") { try mod.text("#people-count") == "3" }
        try shoot(mod, "moderator-full-room", width: 1366, height: 768)

        let remove = "#device-list button[data-action=kick][data-device='\(ben.deviceID)']"
        try mod.click(remove)
        try mod.poll("the confirmation") { try mod.text(remove) == "Sure? Remove" }
        try mod.click(remove)
        try mod.poll("Ben gone") { try h.device(named: "Ben") == nil }
        try h.joinAndWait(cem, name: "Cem")
        XCTAssertNotNil(try h.device(named: "Cem"))
        withExtendedLifetime(ana) {}
    }

    /// A laptop (1366 × 768): with three presenters waiting and the request's toast up,
    /// every queued name and its Grant button are in view and not under the toast.
    func testTheQueueIsInViewOnALaptop() throws {
        let h = try ServiceHarness.web(floor: .moderated)
        let mod = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(mod, name: "Mo", role: .moderator)
        let waiting = try ["Finn", "Gus", "Hana"].map { name -> LecternConnection in
            let c = try h.presenter(name)
            _ = try c.requestFloor()
            return c
        }
        try mod.poll("three queued") { try mod.execute("return document.querySelectorAll('#queue-list li').length") as? Int == 3 }
        try mod.poll("the toast") { try mod.execute("return document.getElementById('toast').classList.contains('show')") as? Bool == true }
        try mod.execute("window.scrollTo(0, 0)")
        let hidden =
            try mod.execute(
                """
                // The toast lets taps through (pointer-events: none), so hit testing can't see
                // it: its rectangle is compared instead.
                const out = [], t = document.getElementById('toast').getBoundingClientRect();
                const underToast = (r) => !(r.right <= t.left || r.left >= t.right || r.bottom <= t.top || r.top >= t.bottom);
                const seen = (el, r) => { const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return !!at && el.contains(at) && !underToast(r); };
                for (const li of document.querySelectorAll('#queue-list li')) {
                  const name = li.querySelector('.person-name'), grant = li.querySelector('button[data-action=grant]');
                  for (const el of [name, grant]) {
                    const r = el.getBoundingClientRect();
                    const inView = r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth;
                    if (!inView || !seen(el, r)) out.push(el.textContent + ' at ' + Math.round(r.top));
                  }
                }
                return out;
                """) as? [String]
        XCTAssertEqual(hidden, [], "out of view or under the toast on a laptop")
        try shoot(mod, "moderator-queue", width: 1366, height: 768)
        withExtendedLifetime(waiting) {}
    }

    /// Grant over a live presenter asks first, naming who is live; cancelled, nothing
    /// changes. The holder hands the floor to another device from the page; the
    /// moderator takes it back; Grant confirmed moves the floor.
    func testGrantAsksFirstAndTheFloorIsHandedOverAndTakenBack() throws {
        let h = try ServiceHarness.web(floor: .moderated)
        let mod = try h.browser(width: 1366, height: 768)
        try h.joinAndWait(mod, name: "Mo", role: .moderator)
        let ana = try h.browser(width: 390, height: 844)
        try h.joinAndWait(ana, name: "Ana")
        let anaID = try XCTUnwrap(h.device(named: "Ana")).id
        let ben = try h.presenter("Ben")

        // Nobody live: Grant gives the floor at once.
        try mod.poll("Ana listed") { try mod.find("#device-list button[data-action=grant][data-device='\(anaID)']") != nil }
        try mod.click("#device-list button[data-action=grant][data-device='\(anaID)']")
        try ana.poll("Ana has the floor") { try ana.text("#floor-status") == "You have the floor." }

        // Ana is live: Grant to Ben asks first; Cancel leaves Ana with the floor.
        _ = try ben.requestFloor()
        let grantBen = "#queue-list button[data-action=grant][data-device='\(ben.deviceID)']"
        try mod.click(grantBen)
        _ = try mod.wait(for: "#confirm-dialog[open]")
        XCTAssertEqual(try mod.text("#confirm-text"), "Ana is live. Give the floor to Ben? Ana loses it and the screen goes back to idle.")
        XCTAssertEqual(try mod.text("#confirm-yes"), "Give it")
        try shoot(mod, "moderator-grant-asks", width: 1366, height: 768)
        try mod.click("#confirm-no")
        try mod.poll("the dialog closed") { try mod.execute("return document.getElementById('confirm-dialog').open") as? Bool == false }
        XCTAssertEqual(try h.snapshot().floor.holder, anaID)
        XCTAssertEqual(try h.snapshot().floor.queue, [ben.deviceID])

        // Ana hands the floor to Ben from her page.
        try ana.poll("the hand-over row") { try ana.displayed(XCTUnwrap(ana.find("#handover"))) }
        try ana.execute("const s = document.getElementById('handover-to'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));", [String(ben.deviceID)])
        try ana.click("#handover-go")
        try ana.poll("lent") { try h.snapshot().floor.delegate == ben.deviceID }
        try ana.poll("Ana's page says so") { try ana.text("#floor-status") == "You have the floor, lent to Ben." }
        try ana.poll("no hand-over while lent") { try ana.execute("return document.getElementById('handover').hidden") as? Bool == true }
        try shoot(ana, "presenter-lent", width: 390, height: 844)

        // The moderator takes it back: Ana drives again.
        let takeBack = "#device-list button[data-action=takeback][data-device='\(ben.deviceID)']"
        try mod.click(takeBack)
        try mod.poll("the loan ended") { try h.snapshot().floor.delegate == nil }
        XCTAssertEqual(try h.snapshot().floor.holder, anaID)
        try ana.poll("Ana drives again") { try ana.text("#floor-status") == "You have the floor." }

        // Grant, confirmed: Ben has the floor.
        try mod.click(grantBen)
        _ = try mod.wait(for: "#confirm-dialog[open]")
        try mod.click("#confirm-yes")
        try mod.poll("Ben has the floor") { try h.snapshot().floor.holder == ben.deviceID }
    }
}
