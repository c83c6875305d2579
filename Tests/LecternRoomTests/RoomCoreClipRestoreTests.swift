import Foundation
import LecternModel
import LecternProtocol
import LecternRoom
import XCTest

/// Issue 18 in the pure core: the clip and the volume in the saved state, saved at a
/// bounded rate, and played again after a restart; sound-set.
final class RoomCoreClipRestoreTests: XCTestCase {
    typealias H = RoomCoreHarness

    static let clip = ContentEntry(id: cid(2), name: "clip.mp4", kind: .clip, size: 5000, pages: 0, durationMs: 10_000)

    func saved(_ json: String) throws -> SavedState { try JSONDecoder().decode(SavedState.self, from: Data(json.utf8)) }

    static func persisted(_ effects: [RoomEffect]) -> [SavedState] {
        effects.compactMap { if case .persist(let s) = $0 { return s } else { return nil } }
    }

    func testASavedPausedClipIsOpenedAgainThenSoughtAndPausedBeforeItsFirstFrame() throws {
        let h = H(floor: .open, catalog: [deck(1), Self.clip])
        let state = try saved(
            #"{"page":0,"blank":"none","clip":{"content":"\#(cid(2).hex)","position":6.5,"paused":true,"loop":true},"sound":{"level":40,"muted":true}}"#)
        let restored = h.core.restore(state, screen: nil, now: h.now, wall: h.wall.seconds)
        XCTAssertEqual(H.work(restored), [.setSound(level: 40, muted: true), .openClip(serial: 1, content: cid(2).hex)])
        // Until it opens, what is saved still has the clip (a second crash meanwhile loses nothing).
        XCTAssertEqual(Self.persisted(restored).last?.clip, SavedClip(content: cid(2).hex, position: 6.5, paused: true, loop: true))
        let opened = h.handle(.clipOpened(serial: 1, .success(ClipFacts(duration: 10, description: "h264"))))
        XCTAssertEqual(
            H.clipWork(opened),
            [.clipSound(serial: 1), .steerClip(serial: 1, .seek(6.5)), .steerClip(serial: 1, .pause), .playClip(serial: 1, loop: true, layout: .full, pane: 0)])
        let s = h.core.snapshot(now: h.now)
        XCTAssertEqual(s.screen.clip?.state, .paused)
        XCTAssertEqual(s.screen.clip?.positionMs, 6500)
        XCTAssertEqual(s.sound.level, 40)
        XCTAssertTrue(s.sound.muted)
    }

    func testAPlayingClipStartsWhereItWasAndAGoneOrOddOneIsLeftOut() throws {
        let h = H(floor: .open, catalog: [deck(1), Self.clip])
        let playing = h.core.restore(
            try saved(#"{"page":0,"blank":"none","clip":{"content":"\#(cid(2).hex)","position":3,"paused":false,"loop":false}}"#),
            screen: nil, now: h.now, wall: h.wall.seconds)
        XCTAssertEqual(H.work(playing), [.openClip(serial: 1, content: cid(2).hex)])
        let opened = h.handle(.clipOpened(serial: 1, .success(ClipFacts(duration: 10, description: "h264"))))
        XCTAssertEqual(H.clipWork(opened), [.clipSound(serial: 1), .steerClip(serial: 1, .seek(3)), .playClip(serial: 1, loop: false, layout: .full, pane: 0)])

        // Not in the store any more, not a clip, or a position past the end.
        let gone = H(floor: .open, catalog: [deck(1)])
        let atThree = try saved(#"{"page":0,"blank":"none","clip":{"content":"\#(cid(2).hex)","position":3,"paused":false,"loop":false}}"#)
        XCTAssertEqual(H.work(gone.core.restore(atThree, screen: nil, now: 0, wall: 0)), [])
        let pdf = H(floor: .open, catalog: [deck(2)])
        XCTAssertEqual(H.work(pdf.core.restore(atThree, screen: nil, now: 0, wall: 0)), [])
        let past = H(floor: .open, catalog: [Self.clip])
        _ = past.core.restore(try saved(#"{"page":0,"blank":"none","clip":{"content":"\#(cid(2).hex)","position":99,"paused":false,"loop":false}}"#), screen: nil, now: 0, wall: 0)
        XCTAssertEqual(
            H.clipWork(past.handle(.clipOpened(serial: 1, .success(ClipFacts(duration: 10, description: ""))))),
            [.clipSound(serial: 1), .playClip(serial: 1, loop: false, layout: .full, pane: 0)])
        // A file from before clips were saved has none.
        XCTAssertNil(try saved(#"{"page":2,"blank":"none"}"#).clip)
    }

    /// Progress reports come twice a second; seeks as fast as a client sends them: the file
    /// is written at most every 0.4 s for them, and the newest position is never left unsaved.
    func testProgressAndSeeksAreSavedAtABoundedRate() {
        let h = H(floor: .open, catalog: [deck(1), Self.clip])
        let ana = h.join(1, name: "Ana")
        h.send(.floorRequest, from: 1, device: ana)
        h.own(cid(2), from: 1, device: ana)
        h.send(.clipPlay(content: cid(2), loop: false), from: 1, device: ana)
        XCTAssertEqual(Self.persisted(h.handle(.clipOpened(serial: 1, .success(ClipFacts(duration: 10, description: ""))))).last?.clip?.position, 0)
        var saves: [SavedState] = []
        for i in 1...40 {   // 4 s of seeks every 0.1 s
            h.now += 0.1
            saves += Self.persisted(h.send(.clipSeek(positionMs: UInt32(i * 100)), from: 1, device: ana))
        }
        XCTAssertLessThanOrEqual(saves.count, 11, "\(saves.count) writes for 40 seeks in 4 s")
        XCTAssertGreaterThanOrEqual(saves.count, 8)
        h.now += 0.5
        let tick = Self.persisted(h.handle(.tick))
        XCTAssertEqual(tick.last?.clip?.position ?? saves.last?.clip?.position, 4.0, "the last seek is saved by the next tick")
        // A pause is saved at once.
        XCTAssertEqual(Self.persisted(h.send(.clipPause, from: 1, device: ana)).last?.clip?.paused, true)
        // The end clears it.
        let ended = h.handle(.clipEnded(serial: 1, ClipEnding(how: .ended, progress: ClipProgress(state: .stopped))))
        XCTAssertEqual(Self.persisted(ended).count, 1)
        XCTAssertNil(Self.persisted(ended).last?.clip)
    }

    func testSoundSetChangesTheVolumeForWhoeverDrives() {
        let h = H(floor: .open, catalog: [deck(1)])
        h.core.setSoundDevice("plughw:CARD=vc4hdmi0,DEV=0")
        let ana = h.join(1, name: "Ana")
        let ben = h.join(2, name: "Ben")
        h.send(.floorRequest, from: 1, device: ana)
        let set = h.send(.soundSet(SoundSetting(level: 30)), from: 1, tag: 9, device: ana)
        XCTAssertEqual(H.replies(to: 1, set), [.soundSetOK])
        XCTAssertEqual(H.work(set), [.setSound(level: 30, muted: false)])
        XCTAssertEqual(H.states(to: 2, set).last?.sound, SoundSnapshot(level: 30, muted: false, device: "plughw:CARD=vc4hdmi0,DEV=0"))
        XCTAssertEqual(H.work(h.send(.soundSet(SoundSetting(muted: true)), from: 1, device: ana)), [.setSound(level: 30, muted: true)])
        // Saved at a bounded rate: the last setting by the next tick.
        h.now += 0.5
        XCTAssertEqual(Self.persisted(h.handle(.tick)).last?.sound, SavedSound(level: 30, muted: true))
        // The same again: ok, no change, no push.
        let same = h.send(.soundSet(SoundSetting(level: 30, muted: true)), from: 1, tag: 3, device: ana)
        XCTAssertEqual(H.replies(to: 1, same), [.soundSetOK])
        XCTAssertTrue(H.states(to: 2, same).isEmpty)
        XCTAssertEqual(H.errorCode(to: 1, h.send(.soundSet(SoundSetting(level: 101)), from: 1, device: ana)), .volumeOutOfRange)
        XCTAssertEqual(H.errorCode(to: 2, h.send(.soundSet(SoundSetting(level: 10)), from: 2, device: ben)), .floorTaken)
        XCTAssertEqual(h.core.snapshot(now: h.now).sound.level, 30)
    }
}
