import Foundation
import LecternModel
import LecternProtocol
@testable import LecternRoom
import XCTest

/// The meeting (docs/protocol.md §27) in the room core: when it starts, when it ends, and
/// that everything of it goes at the end; with a hand-moved clock.
final class MeetingCoreTests: XCTestCase {
    typealias H = RoomCoreHarness

    /// Registers connection `id` as a viewer with the room passcode.
    func view(_ h: H, _ id: ConnectionID) {
        let hello = h.open(id, address: "10.1.0.\(id % 250 + 1)")
        let proof = RegisterProof.compute(
            passcode: H.presenterPasscode, parameters: hello.parameters(for: .viewer)!, challenge: hello.challenge, role: .viewer, name: "",
            resumeToken: nil)
        h.send(.register(RegisterRequest(role: .viewer, proof: proof, resumeToken: nil, name: "")), from: id)
    }

    /// A wall view: the moderator's passcode, then wall-view.
    func wall(_ h: H, _ id: ConnectionID) -> DeviceID {
        let d = h.join(id, name: "Wall view", role: .moderator)
        XCTAssertEqual(H.replies(to: id, h.send(.wallView, from: id, device: d)), [.ok])
        return d
    }

    func lastSaved(_ h: H) -> SavedState { h.log.compactMap { if case .persist(let s) = $0 { s } else { nil } }.last! }

    // MARK: the value

    func testTheMeetingValueStartsWithAPersonAndEndsIdleOnlyAfterOne() {
        // (people now?, leftovers, seconds later) → step
        let rows: [(Bool, Bool, Double, Meeting.Step)] = [
            (false, false, 0, .none),   // an empty room: no meeting
            (false, false, 600, .none),   // long empty, nothing to end
            (true, false, 1, .started),   // the first person starts it
            (true, false, 1, .none),   // more people: still the same meeting
            (false, false, 1, .none),   // empty from now
            (false, false, 59, .none),   // not yet the idle time
            (true, false, 1, .none),   // back before the end: the count starts again
            (false, false, 1, .none),
            (false, false, 59, .none),
            (false, false, 1, .idleEnd),   // 60 s empty
        ]
        var m = Meeting(id: "a")
        var now = 0.0
        for (i, (people, leftovers, dt, want)) in rows.enumerated() {
            now += dt
            XCTAssertEqual(m.occupancy(people: people, leftovers: leftovers, now: now, wallClock: 1e9 + now, idleSeconds: 60), want, "row \(i)")
        }
        m.ended(nextID: "b", now: now)
        XCTAssertEqual(m.id, "b")
        XCTAssertFalse(m.started)
        XCTAssertEqual(m.occupancy(people: false, leftovers: false, now: now + 1000, wallClock: 0, idleSeconds: 60), .none, "an ended meeting doesn't end again")
        // Something of a meeting kept from before (an older state file) ends idle without a start.
        var old = Meeting(id: "c")
        XCTAssertEqual(old.occupancy(people: false, leftovers: true, now: 0, wallClock: 0, idleSeconds: 60), .none)
        XCTAssertEqual(old.occupancy(people: false, leftovers: true, now: 60, wallClock: 0, idleSeconds: 60), .idleEnd)
    }

    // MARK: start

    func testWhoStartsAMeeting() {
        let rows: [(String, (H) -> Void, Bool)] = [
            ("a presenter", { h in h.join(1, name: "Ana") }, true),
            ("the moderator", { h in h.join(1, name: "Mo", role: .moderator) }, true),
            ("a viewer", { h in self.view(h, 1) }, true),
            ("a wall view", { h in _ = self.wall(h, 1) }, false),
            ("a connection that never registers", { h in _ = h.open(1) }, false),
        ]
        for (who, act, starts) in rows {
            let h = H(floor: .open)
            let id = h.core.snapshot(now: h.now).meeting
            XCTAssertNotNil(id)
            act(h)
            h.handle(.tick)
            XCTAssertEqual(h.core.meeting.started, starts, who)
            XCTAssertEqual(h.core.snapshot(now: h.now).meeting, id, "\(who): the id is the meeting's from before its start")
        }
    }

    // MARK: end

    func testTheModeratorEndsTheMeetingAndEverythingOfItGoes() throws {
        let h = H(floor: .open, catalog: [deck(1, pages: 3), deck(2, pages: 2, name: "other.pdf")])
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        h.shown(h.send(.present(content: cid(1), page: 1), from: 1, device: ana))
        XCTAssertEqual(H.replies(to: 1, h.send(.notesEdit(NotesEdit(content: cid(1), page: 1, text: "Ana's note")), from: 1, device: ana)), [.ok])
        let p = InkPoint(x: 10, y: 10)
        h.send(.ink(.strokeBegin(StrokeBegin(points: [p]))), from: 1, device: ana)
        h.send(.ink(.strokeEnd([p])), from: 1, device: ana)
        view(h, 100)
        h.send(.pollAsk(PollDraft(question: "Q?", kind: .yesno)), from: 1, device: ana)
        h.send(.questionAsk(text: "Why?", named: false), from: 100)
        h.send(.audienceSet(.allowDownload), from: 1, device: ana)
        h.send(.timer(TimerCommand(action: .start, mode: .elapsed, value: 0)), from: 1, device: ana)
        h.shown(h.send(.ink(.whiteboard(black: false)), from: 1, device: ana))
        h.handle(.tick)
        XCTAssertTrue(h.core.meeting.started)
        let before = h.core.snapshot(now: h.now)
        XCTAssertEqual(before.ink?.strokes, 1)
        XCTAssertNotNil(before.audience?.poll)
        XCTAssertGreaterThan(before.record?.pages ?? 0, 0)

        // A presenter may not end it; the moderator may.
        XCTAssertEqual(H.errorCode(to: 1, h.send(.audienceSet(.endMeeting), from: 1, device: ana)), .moderatorOnly)
        let mo = h.join(3, name: "Mo", role: .moderator)
        let walls = wall(h, 4)
        let ended = h.send(.audienceSet(.endMeeting), from: 3, device: mo)

        // The moderator is answered, then everyone (not the wall view) is let go, told why.
        XCTAssertEqual(H.replies(to: 3, ended).first, .ok)
        for id: ConnectionID in [1, 3, 100] {
            let errors: [ErrorCode] = H.replies(to: id, ended).compactMap { m -> ErrorCode? in if case .error(let e) = m { return e.code } else { return nil } }
            XCTAssertEqual(errors, [.meetingEnded], "connection \(id)")
            XCTAssertTrue(ended.contains(.close(id)), "connection \(id) is closed")
        }
        XCTAssertFalse(ended.contains(.close(4)), "the wall view stays")
        XCTAssertEqual(H.replies(to: 4, ended), [], "the wall view is not told to leave")
        // The wall goes idle and forgets the page's ink; the upload and its typed notes go.
        XCTAssertEqual(H.shows(ended), [.idle])
        XCTAssertTrue(ended.contains(.inkPage(InkPageRef(content: cid(1).hex, page: 1), InkLayer(strokes: []))), "the wall's ink of the page is cleared")
        XCTAssertTrue(ended.contains(.removeUpload(cid(1))))
        XCTAssertTrue(ended.contains(.removeUpload(cid(2))), "uploads_kept = \"meeting\" (the default): every upload goes")
        let notes = ended.compactMap { if case .saveNotes(cid(1), let n) = $0 { n } else { nil } }.last
        XCTAssertNotNil(notes, "the notes file is rewritten")
        XCTAssertNil(notes?.typed, "typed notes are cleared before the file goes")
        let shownIdle = h.shown(ended)

        // Nothing of it is left in the state the wall view gets, nor in what is saved.
        let after = H.states(to: 4, ended + shownIdle).last!
        XCTAssertNotEqual(after.meeting, before.meeting, "a new meeting id")
        XCTAssertEqual(after.devices.map(\.name), ["Wall view"])
        XCTAssertNil(after.screen.content)
        XCTAssertEqual(after.ink?.strokes, 0)
        XCTAssertEqual(after.ink?.whiteboards, [0, 0])
        XCTAssertNil(after.audience?.poll)
        XCTAssertEqual(after.audience?.questionCount, 0)
        XCTAssertEqual(after.audience?.download, false)
        XCTAssertEqual(after.record?.pages, 0)
        XCTAssertEqual(after.console?.timer.running, false)
        let saved = lastSaved(h)
        let json = String(decoding: try JSONEncoder().encode(saved), as: UTF8.self)
        for leftover in ["Q?", "Why?", "Ana", cid(1).hex, "downloadToken"] {
            XCTAssertFalse(json.contains(leftover), "'\(leftover)' is still in the saved state: \(json)")
        }
        XCTAssertEqual(saved.meeting?.id, after.meeting)
        XCTAssertEqual(saved.ink?.pages.count ?? 0, 0)
        XCTAssertNil(saved.record)
        XCTAssertNil(saved.whiteboards)
        XCTAssertNil(saved.holder)
        _ = walls
    }

    func testAWallViewAloneDoesNotKeepTheMeetingAlive() {
        // (declares wall-view?, meeting ended after the idle time)
        for (declared, ends) in [(true, true), (false, false)] {
            let h = H(floor: .open, catalog: [deck(1)]) { $0.audienceIdleMinutes = 1 }
            let w = h.join(5, name: "Wall view", role: .moderator)
            if declared { XCTAssertEqual(H.replies(to: 5, h.send(.wallView, from: 5, device: w)), [.ok]) }
            let ana = h.join(1, name: "Ana")
            h.send(.floorRequest, from: 1, device: ana)
            h.send(.pollAsk(PollDraft(question: "Q?", kind: .yesno)), from: 1, device: ana)
            let id = h.core.snapshot(now: h.now).meeting
            h.send(.unregister, from: 1, device: ana)
            h.handle(.closed(1))
            h.handle(.tick)
            h.now += 59
            h.handle(.tick)
            XCTAssertNotNil(h.core.snapshot(now: h.now).audience?.poll, "declared \(declared): not yet")
            h.now += 2
            let tick = h.handle(.tick)
            XCTAssertEqual(h.core.snapshot(now: h.now).audience?.poll == nil, ends, "declared \(declared)")
            XCTAssertEqual(h.core.snapshot(now: h.now).meeting != id, ends, "declared \(declared): a new meeting id")
            XCTAssertFalse(tick.contains(.close(5)), "the wall view is never let go")
        }
    }

    func testUploadsKeptForTheDayGoAtTheFirstEndOnALaterDay() {
        let h = H(floor: .open) { $0.uploadsKept = .day }
        let today = h.wall.seconds
        // Stored today, and yesterday (the shell reads the files' times at start).
        var fresh = deck(1), old = deck(2)
        fresh.storedAt = today - 60
        old.storedAt = today - 86_400
        let h2 = H(floor: .open, catalog: [fresh, old]) { $0.uploadsKept = .day }
        h2.wall.seconds = today
        let mo = h2.join(3, name: "Mo", role: .moderator)
        let ended = h2.send(.audienceSet(.endMeeting), from: 3, device: mo)
        XCTAssertFalse(ended.contains(.removeUpload(cid(1))), "today's upload is kept for the day")
        XCTAssertTrue(ended.contains(.removeUpload(cid(2))), "yesterday's goes")
        _ = h
    }

    func testTheMeetingIdSurvivesARestartAndAnOlderFileStartsANewOne() throws {
        let h = H(floor: .open)
        h.join(1, name: "Ana")
        h.handle(.tick)
        let id = h.core.snapshot(now: h.now).meeting
        let data = try JSONEncoder().encode(lastSaved(h))
        let back = try XCTUnwrap(SavedStateFile.read(data).state)
        let h2 = H(floor: .open)
        _ = h2.core.restore(back, screen: nil, now: h2.now, wall: h2.wall.seconds)
        XCTAssertEqual(h2.core.snapshot(now: h2.now).meeting, id)
        XCTAssertTrue(h2.core.meeting.started)
        var older = back
        older.meeting = nil
        let h3 = H(floor: .open)
        _ = h3.core.restore(older, screen: nil, now: h3.now, wall: h3.wall.seconds)
        XCTAssertNotEqual(h3.core.snapshot(now: h3.now).meeting, id)
    }
}
