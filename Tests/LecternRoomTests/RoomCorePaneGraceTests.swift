import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// A pane's driver whose connection drops keeps its pane for the grace period
/// (docs/protocol.md §9.6, §9.7): back in time with its token, it drives the pane again;
/// too late, the pane was emptied and it is told once (`paneExpired`); a pane handed on by
/// the moderator while it was away is not an expiry. A table of stories over the pure core,
/// with a hand-moved clock.
final class RoomCorePaneGraceTests: XCTestCase {
    typealias H = RoomCoreHarness

    enum Step {
        /// Seconds pass; `wake`: the core's own wake-up for the deadline is handled.
        case wait(Double, wake: Bool)
        /// The moderator hands pane 1 to Cid (connection 4).
        case handedToCid
        /// The moderator goes back to one pane (pane 1 is dropped).
        case backToFull
    }

    struct Story {
        let name: String
        let grace: Double
        let away: [Step]
        /// What Ben's register with his token gets: resumed (and his pane back), told.
        let resumed: Bool
        let told: Bool
        /// Pane 1 still shows Ben's page when he is back (else it was emptied).
        let paneKept: Bool
    }

    static let stories: [Story] = [
        Story(name: "back in time", grace: 10, away: [.wait(5, wake: false)], resumed: true, told: false, paneKept: true),
        Story(name: "back too late, after the wake", grace: 10, away: [.wait(10, wake: true), .wait(30, wake: false)], resumed: false, told: true, paneKept: false),
        Story(name: "back too late, before the wake ran", grace: 10, away: [.wait(11, wake: false)], resumed: false, told: true, paneKept: false),
        Story(
            name: "the moderator handed his pane on", grace: 10, away: [.wait(2, wake: false), .handedToCid, .wait(20, wake: true)], resumed: false, told: false, paneKept: false),
        Story(name: "the layout dropped his pane", grace: 10, away: [.wait(2, wake: false), .backToFull, .wait(20, wake: true)], resumed: false, told: false, paneKept: false),
        Story(name: "no grace period: he left at once", grace: 0, away: [.wait(1, wake: true)], resumed: false, told: false, paneKept: false),
    ]

    func register(_ h: H, _ id: ConnectionID, token: ResumeToken?) -> [RoomEffect] {
        let hello = h.open(id)
        let proof = RegisterProof.compute(
            passcode: H.presenterPasscode, parameters: hello.parameters(for: .presenter)!, challenge: hello.challenge,
            role: .presenter, name: "Ben", resumeToken: token)
        return h.send(.register(RegisterRequest(role: .presenter, proof: proof, resumeToken: token, name: "Ben")), from: id)
    }

    /// A moderated room: the chair (1), Ana (2) with the floor on deck 1, Ben (3) driving pane 1
    /// of a split with his deck 2 page 3 on it. Returns Ben's register-ok.
    func benInPane1(grace: Double) -> (H, mod: DeviceID, ben: RegisterOK) {
        let h = H(floor: .moderated, catalog: [deck(1), deck(2)], configure: { $0.gracePeriod = grace })
        let mod = h.join(1, name: "Chair", role: .moderator)
        let ana = h.join(2, name: "Ana")
        h.send(.floorRequest, from: 2, device: ana)
        h.send(.floorModerate(action: .grant, target: ana), from: 1, device: mod)
        h.own(cid(1), from: 2, device: ana)
        h.shownAll(h.send(.present(content: cid(1), page: 1), from: 2, device: ana))
        guard case .registerOK(let ben)? = H.messages(to: 3, register(h, 3, token: nil)).first else { fatalError("Ben did not register") }
        h.own(cid(2), from: 3, device: ben.deviceID)
        h.shownAll(h.send(.layoutSet(.split), from: 1, device: mod))
        h.shownAll(h.send(.paneSet(PaneRequest(pane: 1, .assign(ben.deviceID))), from: 1, device: mod))
        h.shownAll(h.send(.present(content: cid(2), page: 3), from: 3, device: ben.deviceID))
        return (h, mod, ben)
    }

    func testAPaneDriverComingBackGetsItsPaneOrIsToldWhyNot() {
        for story in Self.stories {
            let (h, mod, ben) = benInPane1(grace: story.grace)
            let closed = h.handle(.closed(3))
            var seen = closed + h.shownAll(closed)
            var cid4: DeviceID = 0
            for step in story.away {
                switch step {
                case .wait(let s, let wake):
                    h.now += s
                    if wake { seen += h.shownAll(h.handle(.wake)) }
                case .handedToCid:
                    cid4 = h.join(4, name: "Cid")
                    seen += h.shownAll(h.send(.paneSet(PaneRequest(pane: 1, .assign(cid4))), from: 1, device: mod))
                case .backToFull:
                    seen += h.shownAll(h.send(.layoutSet(.full), from: 1, device: mod))
                }
            }
            let back = register(h, 5, token: ben.resumeToken)
            seen += back + h.shownAll(back)   // an expiry found at the register empties the pane
            let messages = H.messages(to: 5, back)
            guard case .registerOK(let again)? = messages.first else { return XCTFail("\(story.name): \(messages)") }
            XCTAssertEqual(again.resumed, story.resumed, story.name)
            let notices = messages.compactMap { m -> LecternError? in if case .error(let e) = m { return e } else { return nil } }
            let layout = h.core.snapshot(now: h.now).layout
            if story.paneKept {
                XCTAssertEqual(again.deviceID, ben.deviceID, story.name)
                XCTAssertEqual(layout?.panes[1].driver, ben.deviceID, "\(story.name): his pane is his again")
                XCTAssertEqual(layout?.panes[1].screen.page, 3, story.name)
                XCTAssertNil(layout?.panes[1].graceRemainingMs, "\(story.name): back, not away")
                // His next acts on his pane.
                let next = h.send(.control(.next), from: 5, device: again.deviceID)
                XCTAssertEqual(RoomCoreLayoutTests.walls(next).last?.panes[1], .scene(page(2, 4)), story.name)
            } else if layout?.kind == .split {
                XCTAssertNotEqual(layout?.panes[1].driver, ben.deviceID, story.name)
                XCTAssertNil(layout?.panes[1].screen.content, "\(story.name): nothing of Ben's is left in the pane")
                XCTAssertNotEqual(
                    RoomCoreLayoutTests.walls(seen).last?.panes[1], .scene(page(2, 3)), "\(story.name): the wall no longer shows his page")
            }
            if story.told {
                XCTAssertEqual(notices.map(\.code), [.paneExpired], story.name)
                XCTAssertEqual(notices.first?.detail, UInt64(story.grace * 1000), story.name)
                XCTAssertEqual(notices.first?.closesConnection, false, story.name)
                XCTAssertEqual(notices.first?.message, "You were away longer than \(Int(story.grace)) s; your pane of the wall (pane 1) was cleared.", story.name)
                let states = messages.indices.filter { if case .state = messages[$0] { return true } else { return false } }
                let error = messages.firstIndex { if case .error = $0 { return true } else { return false } }
                XCTAssertLessThan(states.first ?? .max, error ?? -1, "\(story.name): the state first")
                // Once: the same token again is not told again.
                h.send(.unregister, from: 5, device: again.deviceID)
                let twice = H.messages(to: 6, register(h, 6, token: ben.resumeToken))
                XCTAssertFalse(twice.contains { if case .error = $0 { return true } else { return false } }, "\(story.name): told once")
            } else {
                XCTAssertEqual(notices, [], story.name)
            }
            _ = cid4
        }
    }

    /// While its driver is away the pane goes on showing its page; the state shows the
    /// driver away (`connected: false`) with the grace period left in the pane; when the
    /// period runs out the pane is emptied on the wall (the idle pane), once.
    func testWhileAwayThePaneStaysAndTheStateSaysHowLong() {
        let (h, _, ben) = benInPane1(grace: 10)
        let closed = h.handle(.closed(3))
        XCTAssertEqual(RoomCoreLayoutTests.walls(closed), [], "the wall doesn't change when he drops")
        h.now += 4
        let s = h.core.snapshot(now: h.now)
        XCTAssertEqual(s.layout?.panes[1].driver, ben.deviceID)
        XCTAssertEqual(s.layout?.panes[1].graceRemainingMs, 6000)
        XCTAssertEqual(s.layout?.panes[1].screen.page, 3)
        XCTAssertNil(s.layout?.panes[0].graceRemainingMs, "the main pane's is the floor's")
        XCTAssertEqual(s.devices.first { $0.id == ben.deviceID }?.connected, false)
        XCTAssertEqual(H.work(h.handle(.wake)).count, 0, "the deadline isn't here yet")
        h.now += 6
        let expired = h.handle(.wake)
        XCTAssertEqual(
            RoomCoreLayoutTests.walls(expired), [WallPlan(layout: .split, panes: [.scene(page(1, 1)), .scene(.idle)])], "emptied once")
        let after = h.core.snapshot(now: h.now)
        XCTAssertNil(after.layout?.panes[1].driver)
        XCTAssertNil(after.layout?.panes[1].graceRemainingMs)
        XCTAssertFalse(after.devices.contains { $0.id == ben.deviceID }, "he left the room")
    }
}
