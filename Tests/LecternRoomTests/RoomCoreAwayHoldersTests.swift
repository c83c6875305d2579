import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// A floor holder coming back (§9.6): in time, its floor back and not a word more; too
/// late, told why (`floorExpired`, once, after register-ok and the state); a floor someone
/// else ended while it was away is not an expiry. A table of stories over the pure core.
final class RoomCoreAwayHoldersTests: XCTestCase {
    typealias H = RoomCoreHarness

    enum Step {
        /// Seconds pass; `wake`: the core's own wake-up for the deadline is handled.
        case wait(Double, wake: Bool)
        /// Ben (connection 2) takes the floor (an open room: the newest request wins).
        case benTakesTheFloor
    }

    struct Story {
        let name: String
        let grace: Double
        let away: [Step]
        /// What Ana's register with her token gets after the steps: resumed, and told.
        let resumed: Bool
        let told: Bool
    }

    static let stories: [Story] = [
        Story(name: "back in time", grace: 10, away: [.wait(5, wake: false)], resumed: true, told: false),
        Story(name: "back too late, after the wake", grace: 10, away: [.wait(10, wake: true), .wait(30, wake: false)], resumed: false, told: true),
        Story(name: "back too late, before the wake ran", grace: 10, away: [.wait(11, wake: false)], resumed: false, told: true),
        Story(name: "someone took the floor while she was away", grace: 10, away: [.wait(2, wake: false), .benTakesTheFloor, .wait(20, wake: true)], resumed: false, told: false),
        Story(name: "no grace period: she left at once", grace: 0, away: [.wait(1, wake: true)], resumed: false, told: false),
    ]

    func register(_ h: H, _ id: ConnectionID, token: ResumeToken?) -> [RoomEffect] {
        let hello = h.open(id)
        let proof = RegisterProof.compute(
            passcode: H.presenterPasscode, parameters: hello.parameters(for: .presenter)!, challenge: hello.challenge,
            role: .presenter, name: "Ana", resumeToken: token)
        return h.send(.register(RegisterRequest(role: .presenter, proof: proof, resumeToken: token, name: "Ana")), from: id)
    }

    func testAHolderComingBackIsToldWhyOnlyWhenItsGracePeriodRanOut() {
        for story in Self.stories {
            let h = H(floor: .open, configure: { $0.gracePeriod = story.grace })
            let joined = register(h, 1, token: nil)
            guard case .registerOK(let ok)? = H.messages(to: 1, joined).first else { return XCTFail("\(story.name): no register-ok") }
            h.send(.floorRequest, from: 1, device: ok.deviceID)
            h.handle(.closed(1))
            for step in story.away {
                switch step {
                case .wait(let s, let wake):
                    h.now += s
                    if wake { h.handle(.wake) }
                case .benTakesTheFloor:
                    let ben = h.join(2, name: "Ben")
                    h.send(.floorRequest, from: 2, device: ben)
                }
            }
            let back = H.messages(to: 3, register(h, 3, token: ok.resumeToken))
            guard case .registerOK(let again)? = back.first else { return XCTFail("\(story.name): \(back)") }
            XCTAssertEqual(again.resumed, story.resumed, story.name)
            let notices = back.compactMap { m -> LecternError? in if case .error(let e) = m { return e } else { return nil } }
            if story.told {
                XCTAssertEqual(notices.map(\.code), [.floorExpired], story.name)
                XCTAssertEqual(notices.first?.detail, UInt64(story.grace * 1000), story.name)
                XCTAssertEqual(notices.first?.closesConnection, false, story.name)
                XCTAssertEqual(notices.first?.message, "You were away longer than \(Int(story.grace)) s; the floor was released.", story.name)
                // After the state that shows the floor gone.
                let states = back.indices.filter { if case .state = back[$0] { return true } else { return false } }
                let error = back.firstIndex { if case .error = $0 { return true } else { return false } }
                XCTAssertLessThan(states.first ?? .max, error ?? -1, "\(story.name): the state first")
                // Once: the same token again is not told again.
                h.send(.unregister, from: 3, device: again.deviceID)
                let twice = H.messages(to: 4, register(h, 4, token: ok.resumeToken))
                XCTAssertFalse(twice.contains { if case .error = $0 { return true } else { return false } }, "\(story.name): told once")
            } else {
                XCTAssertEqual(notices, [], story.name)
            }
        }
    }

    /// The state names the run it comes from (§14.1): one epoch for the core's life, and a
    /// core made later (a restart) has another.
    func testTheStateCarriesTheEpochOfTheRun() {
        let h = H(floor: .open)
        let id = h.join(1, name: "Ana")
        let first = H.states(to: 1, h.send(.floorRequest, from: 1, device: id))
        XCTAssertEqual(first.map(\.epoch), [h.core.epoch])
        XCTAssertEqual(h.core.epoch.count, 16)
        XCTAssertNotEqual(H(floor: .open).core.epoch, h.core.epoch, "a new run, a new epoch")
        XCTAssertEqual(StateEpoch.make(0xAB), "00000000000000ab")
    }
}
