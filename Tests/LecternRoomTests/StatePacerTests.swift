import LecternModel
import LecternProtocol
@testable import LecternRoom
import XCTest

/// State pushes are coalesced per client (§14.1, issue 25 finding 6): the pacing decision
/// as a table, then the room core under an ink flood.
final class StatePacerTests: XCTestCase {
    typealias H = RoomCoreHarness

    func testPacingTable() {
        // (time, what happens, writable, prompt) → sent now?
        enum Step { case offer(Double, writable: Bool, prompt: Bool, sends: Bool), poll(Double, writable: Bool, sends: Bool) }
        let steps: [Step] = [
            .offer(10.00, writable: true, prompt: false, sends: true),   // the first after quiet goes at once
            .offer(10.03, writable: true, prompt: false, sends: false),   // within the window: owed
            .offer(10.06, writable: true, prompt: false, sends: false),   // folded into the same owed push
            .poll(10.09, writable: true, sends: false),   // the window hasn't ended
            .poll(10.10, writable: true, sends: true),   // it has: the newest goes
            .poll(10.15, writable: true, sends: false),   // nothing owed
            .offer(10.15, writable: true, prompt: true, sends: true),   // a prompt one goes at once, window or not
            .offer(10.16, writable: false, prompt: false, sends: false),   // not reading: owed
            .poll(10.40, writable: false, sends: false),   // still not reading
            .poll(10.41, writable: true, sends: true),   // reads again: the newest goes
            .offer(10.45, writable: false, prompt: true, sends: false),   // prompt, but not reading: owed
            .poll(10.46, writable: true, sends: false),   // reads again inside the window: at its end
            .poll(10.51, writable: true, sends: true),
        ]
        var pacer = StatePacer()
        for (i, step) in steps.enumerated() {
            switch step {
            case .offer(let t, let w, let prompt, let sends):
                XCTAssertEqual(pacer.offer(now: t, writable: w, prompt: prompt), sends, "step \(i)")
            case .poll(let t, let w, let sends):
                XCTAssertEqual(pacer.poll(now: t, writable: w), sends, "step \(i)")
            }
        }
        XCTAssertNil(pacer.dueAt())
        _ = pacer.offer(now: 11, writable: true)
        _ = pacer.offer(now: 11.01, writable: true)
        XCTAssertEqual(pacer.dueAt()!, 11.1, accuracy: 1e-9, "an owed push is due when the window ends")
    }

    /// Ana (1) presents deck 1; viewer 50 and presenter Ben (2) watch.
    func room() -> (H, DeviceID) {
        let h = H(floor: .open, catalog: [deck(1)], audienceMode: .open)
        h.core.statePushInterval = StatePacer.interval
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(1), from: 1, device: ana)
        h.shown(h.send(.present(content: cid(1), page: 1), from: 1, device: ana))
        h.join(2, name: "Ben")
        let hello = h.open(50, address: "10.9.0.1")
        let proof = RegisterProof.compute(
            passcode: "x", parameters: hello.parameters(for: .viewer)!, challenge: hello.challenge, role: .viewer, name: "", resumeToken: nil)
        h.send(.register(RegisterRequest(role: .viewer, proof: proof, resumeToken: nil, name: "")), from: 50)
        return (h, ana)
    }

    func testAnInkFloodIsCoalescedPerClientAndTheNewestArrives() {
        let (h, ana) = room()
        h.now += 1
        var viewerStates: [Snapshot] = [], benStates: [Snapshot] = []
        // One drawer at 50 strokes a second for 2 s; the room wakes when it asked to.
        var wake: Double?
        for i in 0..<100 {
            h.now += 0.02
            var effects: [RoomEffect] = []
            if let w = wake, h.now >= w { effects += h.handle(.wake) }
            let p = InkPoint(x: UInt16(100 + i), y: 100)
            effects += h.send(.ink(.strokeBegin(StrokeBegin(points: [p]))), from: 1, device: ana)
            effects += h.send(.ink(.strokeEnd([p])), from: 1, device: ana)
            for case .wake(let at) in effects { wake = at }
            viewerStates += H.states(to: 50, effects)
            benStates += H.states(to: 2, effects)
        }
        // At most one push per 100 ms to each (2 s: 20, one more for the edges).
        XCTAssertLessThanOrEqual(viewerStates.count, 21, "the viewer got \(viewerStates.count) pushes for 100 strokes")
        XCTAssertLessThanOrEqual(benStates.count, 21, "a presenter got \(benStates.count) pushes for 100 strokes")
        XCTAssertGreaterThanOrEqual(viewerStates.count, 10, "but it still follows")
        // The owed push goes when the window ends, with the newest state.
        h.now += 0.2
        let last = h.handle(.wake)
        XCTAssertEqual(H.states(to: 50, last).last?.ink?.strokes, 100, "the newest state arrives")
        XCTAssertEqual(H.states(to: 2, last).last?.ink?.strokes, 100)
    }

    func testAPageTurnReachesThePresentersAtOnceInsideTheWindow() {
        let (h, ana) = room()
        h.now += 1
        let p = InkPoint(x: 1, y: 1)
        h.send(.ink(.strokeBegin(StrokeBegin(points: [p]))), from: 1, device: ana)
        h.send(.ink(.strokeEnd([p])), from: 1, device: ana)   // a push: the window starts
        h.now += 0.01
        let turn = h.shown(h.send(.control(.next), from: 1, device: ana))
        XCTAssertEqual(H.states(to: 1, turn).last?.screen.page, 2, "the presenter's own turn is not held for the window")
        XCTAssertEqual(H.states(to: 2, turn).last?.screen.page, 2, "nor another presenter's")
        XCTAssertTrue(H.states(to: 50, turn).isEmpty, "a viewer's push waits for its window")
        h.now += 0.1
        XCTAssertEqual(H.states(to: 50, h.handle(.wake)).last?.screen.page, 2, "and then carries the page")
    }
}
