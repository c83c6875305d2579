import LecternModel
import XCTest

/// A live share's media decisions (docs/protocol.md §29.3): drop rather than buffer, ask for
/// a key frame after a loss, advise from what arrived; table tests with a hand-moved clock.
final class ShareFlowTests: XCTestCase {
    static let limits = ShareFlow.Limits(maxQueuedBytes: 1_000_000, maxQueuedFrames: 4, bitrate: 4_000_000, frameRate: 30)

    /// The capture timestamp of a frame captured at `t` seconds (the sender's clock is 500 s off).
    static func ts(_ t: Double) -> UInt64 { UInt64((t + 500) * 1_000_000) }

    func testFramesBeforeTheFirstKeyFrameAreDroppedAndAKeyFrameAskedForOnce() {
        var f = ShareFlow(limits: Self.limits)
        let a = f.arrived(sequence: 0, key: false, bytes: 1000, timestamp: Self.ts(0), now: 10)
        XCTAssertEqual(a.0, .drop)
        XCTAssertEqual(a.1, [.requestKey(sequence: 0)])
        let b = f.arrived(sequence: 1, key: false, bytes: 1000, timestamp: Self.ts(0.033), now: 10.033)
        XCTAssertEqual(b.0, .drop)
        XCTAssertEqual(b.1, [], "asked once a second, not per frame")
        let c = f.arrived(sequence: 2, key: true, bytes: 50_000, timestamp: Self.ts(0.066), now: 10.066)
        XCTAssertEqual(c.0, .decode)
        XCTAssertEqual(f.dropped, 2)
        XCTAssertEqual(f.handledSequence, 1)
        XCTAssertEqual(f.queuedFrames, 1)
        XCTAssertEqual(f.arrived(sequence: 3, key: false, bytes: 1000, timestamp: Self.ts(0.1), now: 10.1).0, .decode)
    }

    func testAnOverrunQueueIsFlushedNotCaughtUpAndTheNextDeltaWaitsForAKey() {
        var f = ShareFlow(limits: Self.limits)
        var t = 10.0
        _ = f.arrived(sequence: 0, key: true, bytes: 10_000, timestamp: Self.ts(0), now: t)
        for s in 1...3 {
            t += 0.033
            XCTAssertEqual(f.arrived(sequence: UInt32(s), key: false, bytes: 1000, timestamp: Self.ts(Double(s) * 0.033), now: t).0, .decode)
        }
        XCTAssertEqual(f.queuedFrames, 4, "the decoder took none: it is behind")
        t += 0.033
        let over = f.arrived(sequence: 4, key: false, bytes: 1000, timestamp: Self.ts(0.132), now: t)
        XCTAssertEqual(over.0, .drop)
        XCTAssertEqual(over.1, [.flushQueue, .advise(bitrate: 4_000_000, frameRate: 20, reason: .decoder), .requestKey(sequence: 4)])
        XCTAssertEqual(f.queuedFrames, 0)
        XCTAssertEqual(f.queuedBytes, 0)
        XCTAssertEqual(f.dropped, 5, "the four waiting and this one")
        XCTAssertTrue(f.waitingForKey)
        // The decoder finishes the picture it was on; the key frame comes.
        XCTAssertEqual(f.arrived(sequence: 5, key: false, bytes: 1000, timestamp: Self.ts(0.165), now: t + 0.033).0, .drop)
        XCTAssertEqual(f.arrived(sequence: 6, key: true, bytes: 40_000, timestamp: Self.ts(0.2), now: t + 0.066).0, .decode)
        XCTAssertFalse(f.waitingForKey)
    }

    func testAKeyFrameOverTheQueueReplacesWhatWaits() {
        var f = ShareFlow(limits: Self.limits)
        _ = f.arrived(sequence: 0, key: true, bytes: 600_000, timestamp: Self.ts(0), now: 10)
        let k = f.arrived(sequence: 1, key: true, bytes: 600_000, timestamp: Self.ts(0.033), now: 10.033)
        XCTAssertEqual(k.0, .decode)
        XCTAssertTrue(k.1.contains(.flushQueue))
        XCTAssertFalse(k.1.contains(.requestKey(sequence: 1)), "it is a key frame itself")
        XCTAssertEqual(f.queuedFrames, 1)
        XCTAssertEqual(f.queuedBytes, 600_000)
    }

    func testASequenceGapWaitsForAKeyFrame() {
        var f = ShareFlow(limits: Self.limits)
        _ = f.arrived(sequence: 0, key: true, bytes: 1000, timestamp: Self.ts(0), now: 10)
        let gap = f.arrived(sequence: 5, key: false, bytes: 1000, timestamp: Self.ts(0.2), now: 10.2)
        XCTAssertEqual(gap.0, .drop)
        XCTAssertEqual(gap.1, [.requestKey(sequence: 5)])
    }

    /// Frames arriving later and later (the network carries less than is sent): advice of
    /// three quarters of what arrived, once a second; then, with the delay gone for 5 s, up again.
    func testGrowingDelayAdvisesALowerBitrateAndAWellLinkRaisesItAgain() {
        var f = ShareFlow(limits: Self.limits)
        var advice: [ShareFlow.Effect] = []
        // 30 fps of 12.5 kB (3 Mbit/s) captured every 1/30 s, arriving 1/25 s apart: ever later.
        for i in 0..<60 {
            let captured = Double(i) / 30, arrived = 10 + Double(i) / 25
            let r = f.arrived(sequence: UInt32(i), key: i == 0, bytes: 12_500, timestamp: Self.ts(captured), now: arrived)
            advice += r.1.filter { if case .advise = $0 { return true } else { return false } }
            _ = f.handled(sequence: UInt32(i), bytes: 12_500, seconds: 0.005, now: arrived)
        }
        guard case .advise(let b, let fps, let why)? = advice.first else { return XCTFail("no advice: \(advice)") }
        XCTAssertEqual(why, .network)
        XCTAssertEqual(fps, 30)
        XCTAssertEqual(Double(b), 0.75 * 12_500 * 8 * 25, accuracy: 100_000, "three quarters of the 2.5 Mbit/s that arrived")
        XCTAssertLessThanOrEqual(advice.count, 2, "at most once a second")
        // Then on time again (the sender sends less): after 5 s, up by a quarter.
        var raised: [ShareFlow.Effect] = []
        for i in 0..<200 {
            let captured = 2.5 + Double(i) / 30, arrived = 12.5 + Double(i) / 30
            let r = f.arrived(sequence: UInt32(60 + i), key: false, bytes: 5000, timestamp: Self.ts(captured), now: arrived)
            raised += r.1.filter { if case .advise(_, _, .recovered) = $0 { return true } else { return false } }
            _ = f.handled(sequence: UInt32(60 + i), bytes: 5000, seconds: 0.005, now: arrived)
        }
        guard case .advise(let up, _, .recovered)? = raised.first else { return XCTFail("no raise: \(raised)") }
        XCTAssertEqual(up, min(Self.limits.bitrate, b * 5 / 4))
    }

    func testASlowDecoderAdvisesAFrameRateItKeepsUpWith() {
        var f = ShareFlow(limits: Self.limits)
        var out: [ShareFlow.Effect] = []
        for i in 0..<10 {
            _ = f.arrived(sequence: UInt32(i), key: i == 0, bytes: 1000, timestamp: Self.ts(Double(i) / 30), now: 10 + Double(i) / 30)
            out += f.handled(sequence: UInt32(i), bytes: 1000, seconds: 0.05, now: 10 + Double(i) / 30)
        }
        XCTAssertEqual(out.first, .advise(bitrate: 4_000_000, frameRate: 16, reason: .decoder), "50 ms a picture: 16 a second with room to spare")
    }

    func testASenderFarOverWhatItAnnouncedIsOverTheLimit() {
        var f = ShareFlow(limits: Self.limits)
        var over: [String] = []
        // 300 key frames a second of 20 kB: a flood.
        for i in 0..<900 {
            let t = 10 + Double(i) / 300
            let r = f.arrived(sequence: UInt32(i), key: true, bytes: 20_000, timestamp: Self.ts(Double(i) / 300), now: t)
            over += r.1.compactMap { if case .overLimit(let why) = $0 { return why } else { return nil } }
            _ = f.handled(sequence: UInt32(i), bytes: 20_000, seconds: 0.001, now: t)
        }
        XCTAssertFalse(over.isEmpty)
        XCTAssertTrue(over[0].contains("frames a second, more than the 30 it announced"), over[0])
    }
}
