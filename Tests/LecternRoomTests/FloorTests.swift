import LecternModel
import LecternProtocol
import LecternTestKit
@testable import LecternRoom
import XCTest

/// A resume token of 16 times `byte`.
private func token(_ byte: UInt8) -> ResumeToken { ResumeToken(bytes: [UInt8](repeating: byte, count: 16))! }

final class FloorTests: XCTestCase {
    var counter: UInt8 = 0

    func makeMeeting(_ mode: FloorMode, grace: Double = 60) -> Floor {
        counter = 0
        return Floor(config: FloorConfig(floorMode: mode, gracePeriod: grace))
    }

    /// The next resume token: 16 times a counter, from 1 after each `makeMeeting`.
    func nextToken() -> ResumeToken {
        counter &+= 1
        return token(counter)
    }

    @discardableResult
    func join(_ m: inout Floor, _ conn: ConnectionID, _ role: Role = .presenter, token: ResumeToken? = nil, now: Double = 0) throws -> Registration {
        try m.register(connection: conn, name: "dev\(conn)", role: role, resumeToken: token, now: now, newToken: nextToken)
    }

    func granted(_ ev: [FloorEvent]) -> [DeviceID] {
        ev.compactMap {
            if case .floorGranted(let to, _, _) = $0 { return to }; return nil
        }
    }
    func withdrawn(_ ev: [FloorEvent]) -> [DeviceID: FloorLossReason] {
        var out: [DeviceID: FloorLossReason] = [:]
        for e in ev { if case .floorWithdrawn(let from, let r, _) = e { out[from] = r } }
        return out
    }

    // MARK: registration

    func testIdsAreLowestFreeAndTheLastOfThe254IsAModerators() throws {
        var m = makeMeeting(.open)
        for c in 1...253 { XCTAssertEqual(try join(&m, ConnectionID(c)).deviceID, DeviceID(c)) }
        assertThrowsCode(.roomFull) { try join(&m, 999) }
        XCTAssertEqual(LecternError.roomFull().message, "The room is full (254 devices).")
        // The 254th place is kept for a moderator; then the room is full for everyone.
        XCTAssertEqual(try join(&m, 998, .moderator).deviceID, 254)
        assertThrowsCode(.roomFull) { try join(&m, 997, .moderator) }
        _ = m.disconnect(connection: 17, now: 1)
        XCTAssertEqual(try join(&m, 1000).deviceID, 17)
        assertThrowsCode(.roomFull) { try join(&m, 1001) }
    }

    /// `max_clients` = 2: two presenters fill the room, a moderator still comes in (the
    /// place kept beyond them), a second moderator does not; a presenter who leaves frees
    /// a presenter's place even though the moderator took a higher id.
    func testAModeratorAlwaysHasASeatInAFullRoom() throws {
        var m = Floor(config: FloorConfig(floorMode: .moderated, capacity: 2))
        let a = try join(&m, 1), b = try join(&m, 2)
        XCTAssertEqual([a.deviceID, b.deviceID], [1, 2])
        do {
            _ = try join(&m, 3)
            XCTFail("a third presenter got in")
        } catch let error as LecternError {
            XCTAssertEqual(error, .roomFull(capacity: 2))
            XCTAssertEqual(error.message, "The room is full (2 devices).")
        }
        let mod = try join(&m, 4, .moderator)
        XCTAssertEqual(mod.deviceID, 3)
        do {
            _ = try join(&m, 5, .moderator)
            XCTFail("a second moderator got in")
        } catch let error as LecternError { XCTAssertEqual(error, .roomFull(capacity: 3)) }
        _ = m.disconnect(connection: 1, now: 1)
        XCTAssertEqual(try join(&m, 6).deviceID, 1)
        assertThrowsCode(.roomFull) { try join(&m, 7) }
        // Moderators coming first may take presenters' places, never more than 3 in all.
        var n = Floor(config: FloorConfig(floorMode: .moderated, capacity: 2))
        try join(&n, 1, .moderator); try join(&n, 2, .moderator); try join(&n, 3)
        assertThrowsCode(.roomFull) { try join(&n, 4) }
        assertThrowsCode(.roomFull) { try join(&n, 5, .moderator) }
    }

    func testRegisterChecks() throws {
        var m = makeMeeting(.open)
        let r = try join(&m, 1)
        XCTAssertEqual(r.events, [.stateChanged])
        XCTAssertEqual(r.reply, .registerOK(RegisterOK(deviceID: 1, role: .presenter, resumed: false, floorRestored: false, resumeToken: token(1))))
        assertThrowsCode(.alreadyRegistered) { try join(&m, 1) }
        assertThrowsCode(.invalidName) { try m.register(connection: 2, name: "", role: .presenter, resumeToken: nil, now: 0, newToken: nextToken) }
        assertThrowsCode(.invalidName) { try m.register(connection: 2, name: String(repeating: "x", count: 65), role: .presenter, resumeToken: nil, now: 0, newToken: nextToken) }
        assertThrowsCode(.invalidName) { try m.register(connection: 2, name: "a\nb", role: .presenter, resumeToken: nil, now: 0, newToken: nextToken) }
        XCTAssertNoThrow(try m.register(connection: 2, name: String(repeating: "x", count: 64), role: .presenter, resumeToken: nil, now: 0, newToken: nextToken))
    }

    // MARK: open mode

    func testOpenModeNewestRequestWins() throws {
        var m = makeMeeting(.open)
        try join(&m, 1); try join(&m, 2)
        let a = try m.requestFloor(by: 1, now: 1)
        XCTAssertEqual(a.ack, .holder)
        XCTAssertEqual(a.events, [.screenToIdle, .stateChanged], "own request: no floor-granted, only the ack")
        XCTAssertTrue(m.canDriveScreen(1))
        XCTAssertFalse(m.canDriveScreen(2))
        let b = try m.requestFloor(by: 2, now: 2)
        XCTAssertEqual(b.ack, .holder)
        XCTAssertEqual(b.events, [.floorWithdrawn(from: 1, reason: .takenOver, by: 2), .screenToIdle, .stateChanged])
        XCTAssertEqual(m.holder, 2)
        XCTAssertTrue(m.queue.isEmpty)
        assertThrowsCode(.floorTaken) { try m.checkCanDrive(1) }
        // Asking again while holding changes nothing.
        XCTAssertEqual(try m.requestFloor(by: 2, now: 3), FloorRequestResult(ack: .holder, events: []))
    }

    func testReleaseEndsTheFloorAndIdlesTheScreen() throws {
        var m = makeMeeting(.open)
        try join(&m, 1); try join(&m, 2)
        _ = try m.requestFloor(by: 1, now: 1)
        assertThrowsCode(.noFloor) { try m.releaseFloor(by: 2, now: 1) }
        XCTAssertEqual(try m.releaseFloor(by: 1, now: 2), [.screenToIdle, .stateChanged])
        XCTAssertNil(m.holder)
        assertThrowsCode(.noFloor) { try m.checkCanDrive(1) }
    }

    // MARK: moderated mode

    func testModeratedQueueGrantWithdrawReject() throws {
        var m = makeMeeting(.moderated)
        try join(&m, 1, .moderator); try join(&m, 2); try join(&m, 3); try join(&m, 4)
        XCTAssertEqual(try m.requestFloor(by: 2, now: 1).ack, .queued(position: 1))
        XCTAssertEqual(try m.requestFloor(by: 3, now: 1).ack, .queued(position: 2))
        XCTAssertEqual(try m.requestFloor(by: 2, now: 1).ack, .queued(position: 1), "no duplicates")
        XCTAssertEqual(try m.requestFloor(by: 4, now: 1).ack, .queued(position: 3))
        XCTAssertEqual(m.queue, [2, 3, 4])
        XCTAssertNil(m.holder)
        // Only the moderator grants.
        assertThrowsCode(.moderatorOnly) { try m.grant(3, by: 2, now: 2) }
        assertThrowsCode(.noSuchDevice) { try m.grant(99, by: 1, now: 2) }
        let g = try m.grant(3, by: 1, now: 2)
        XCTAssertEqual(g, [.screenToIdle, .floorGranted(to: 3, reason: .granted, by: 1), .stateChanged])
        XCTAssertEqual(m.holder, 3)
        XCTAssertEqual(m.queue, [2, 4])
        // Granting someone else takes it from the holder.
        let g2 = try m.grant(2, by: 1, now: 3)
        XCTAssertEqual(withdrawn(g2), [3: .grantedToOther])
        XCTAssertEqual(granted(g2), [2])
        XCTAssertEqual(m.queue, [4])
        // Reject.
        assertThrowsCode(.notQueued) { try m.reject(3, by: 1, now: 4) }
        XCTAssertEqual(try m.reject(4, by: 1, now: 4), [.floorWithdrawn(from: 4, reason: .requestRejected, by: 1), .stateChanged])
        XCTAssertTrue(m.queue.isEmpty)
        // Withdraw (no target: whoever has it).
        XCTAssertEqual(try m.withdraw(nil, by: 1, now: 5), [.floorWithdrawn(from: 2, reason: .withdrawn, by: 1), .screenToIdle, .stateChanged])
        XCTAssertNil(m.holder)
        assertThrowsCode(.floorFree) { try m.withdraw(nil, by: 1, now: 6) }
        // A queued device may leave the queue.
        _ = try m.requestFloor(by: 3, now: 7)
        XCTAssertEqual(try m.releaseFloor(by: 3, now: 7), [.stateChanged])
        XCTAssertTrue(m.queue.isEmpty)
    }

    func testModeratorRequestTakesTheFloorAtOnce() throws {
        var m = makeMeeting(.moderated)
        try join(&m, 1, .moderator); try join(&m, 2)
        _ = try m.requestFloor(by: 2, now: 0)
        XCTAssertEqual(try m.requestFloor(by: 1, now: 1).ack, .holder)
        XCTAssertEqual(m.queue, [2])
    }

    func testDoNotDisturb() throws {
        var m = makeMeeting(.moderated)
        try join(&m, 1, .moderator); try join(&m, 2); try join(&m, 3)
        _ = try m.requestFloor(by: 2, now: 0)
        assertThrowsCode(.moderatorOnly) { try m.setDoNotDisturb(true, by: 2, now: 1) }
        XCTAssertEqual(try m.moderate(.dndOn, target: 0, by: 1, now: 1), [.stateChanged])
        XCTAssertTrue(m.doNotDisturb)
        assertThrowsCode(.doNotDisturb) { try m.requestFloor(by: 3, now: 2) }
        XCTAssertEqual(LecternError.doNotDisturb.message, "The moderator isn't taking floor requests right now.")
        XCTAssertEqual(m.queue, [2], "the queue stays")
        XCTAssertEqual(try m.requestFloor(by: 2, now: 2).ack, .queued(position: 1), "already queued is not a new request")
        XCTAssertEqual(try m.moderate(.dndOff, target: 0, by: 1, now: 3), [.stateChanged])
        XCTAssertEqual(try m.requestFloor(by: 3, now: 4).ack, .queued(position: 2))
        // Open mode honours it too.
        var o = makeMeeting(.open)
        try join(&o, 1, .moderator); try join(&o, 2)
        _ = try o.setDoNotDisturb(true, by: 1, now: 0)
        assertThrowsCode(.doNotDisturb) { try o.requestFloor(by: 2, now: 1) }
    }

    func testKick() throws {
        var m = makeMeeting(.moderated)
        try join(&m, 10, .moderator); try join(&m, 20); try join(&m, 30)
        _ = try m.grant(2, by: 1, now: 0)
        _ = try m.requestFloor(by: 3, now: 0)
        assertThrowsCode(.moderatorOnly) { try m.kick(3, by: 2, now: 1) }
        assertThrowsCode(.invalidTarget) { try m.kick(1, by: 1, now: 1) }
        assertThrowsCode(.noSuchDevice) { try m.kick(9, by: 1, now: 1) }
        let ev = try m.moderate(.kick, target: 2, by: 1, now: 1)
        XCTAssertEqual(ev, [.closeConnection(20, .kicked), .screenToIdle, .deviceLeft(2), .stateChanged])
        XCTAssertNil(m.holder)
        XCTAssertNil(m.deviceID(forConnection: 20))
        XCTAssertEqual(m.disconnect(connection: 20, now: 2), [], "the closed connection is already forgotten")
        _ = try m.kick(3, by: 1, now: 3)
        XCTAssertTrue(m.queue.isEmpty)
        XCTAssertEqual(LecternError.kicked.closesConnection, true)
    }

    func testNoModeratorConnectedQueueAdvancesItself() throws {
        var m = makeMeeting(.moderated)
        try join(&m, 1); try join(&m, 2); try join(&m, 3)
        XCTAssertEqual(try m.requestFloor(by: 1, now: 0).ack, .holder, "free floor, empty queue, no moderator: first come")
        XCTAssertEqual(try m.requestFloor(by: 2, now: 0).ack, .queued(position: 1))
        XCTAssertEqual(try m.requestFloor(by: 3, now: 0).ack, .queued(position: 2))
        XCTAssertEqual(m.holder, 1, "no newest-wins in a moderated room")
        let ev = try m.releaseFloor(by: 1, now: 1)
        XCTAssertEqual(ev, [.screenToIdle, .floorGranted(to: 2, reason: .queueAdvanced, by: 0), .stateChanged])
        // A moderator arrives: from now on the moderator grants.
        try join(&m, 4, .moderator)
        _ = try m.releaseFloor(by: 2, now: 2)
        XCTAssertNil(m.holder)
        XCTAssertEqual(m.queue, [3])
        // The moderator (after switching on do-not-disturb) leaves: dnd goes off, the queue advances.
        _ = try m.setDoNotDisturb(true, by: 4, now: 3)
        let left = m.disconnect(connection: 4, now: 4)
        XCTAssertFalse(m.doNotDisturb)
        XCTAssertEqual(left, [.deviceLeft(4), .floorGranted(to: 3, reason: .queueAdvanced, by: 0), .stateChanged])
    }

    // MARK: permissions

    func testOnlyTheDriverOrAModeratorDrivesTheScreen() throws {
        var m = makeMeeting(.open)
        try join(&m, 1, .moderator); try join(&m, 2); try join(&m, 3)
        XCTAssertTrue(m.canDriveScreen(1), "moderator, even with nobody holding the floor")
        assertThrowsCode(.noFloor) { try m.checkCanDrive(2) }
        _ = try m.requestFloor(by: 2, now: 0)
        XCTAssertEqual(try m.control(.goto(page: 300), by: 2, now: 1), .screen(.goto(page: 300)))
        XCTAssertEqual(try m.control(.next, by: 1, now: 1), .screen(.next))
        assertThrowsCode(.floorTaken) { try m.control(.next, by: 3, now: 1) }
        assertThrowsCode(.notRegistered) { try m.checkCanDrive(77) }
        // Presenting: uploader or moderator only.
        XCTAssertNoThrow(try m.checkCanPresent(2, isUploader: true))
        assertThrowsCode(.notYourContent) { try m.checkCanPresent(2, isUploader: false) }
        XCTAssertNoThrow(try m.checkCanPresent(1, isUploader: false))
        assertThrowsCode(.floorTaken) { try m.checkCanPresent(3, isUploader: true) }
    }

    // MARK: hand-over

    func testHandOverAndTakeBack() throws {
        var m = makeMeeting(.open)
        try join(&m, 1, .moderator); try join(&m, 2); try join(&m, 3); try join(&m, 4)
        assertThrowsCode(.noFloor) { try m.handOver(to: 3, by: 2, now: 0) }
        _ = try m.requestFloor(by: 2, now: 0)
        assertThrowsCode(.floorTaken) { try m.handOver(to: 4, by: 3, now: 0) }
        assertThrowsCode(.noSuchDevice) { try m.handOver(to: 99, by: 2, now: 0) }
        assertThrowsCode(.invalidTarget) { try m.handOver(to: 2, by: 2, now: 0) }
        assertThrowsCode(.notHandedOver) { try m.takeBack(by: 2, now: 0) }
        // Hand over by control signal 0xFD.
        let h = try m.control(.handOver(to: 3), by: 2, now: 1)
        XCTAssertEqual(h, .floor([.floorGranted(to: 3, reason: .handedOver, by: 2), .stateChanged]))
        XCTAssertEqual(m.holder, 2)
        XCTAssertEqual(m.delegate, 3)
        XCTAssertEqual(m.driver, 3)
        XCTAssertTrue(m.canDriveScreen(3))
        assertThrowsCode(.handedOver) { try m.checkCanDrive(2) }
        XCTAssertEqual(m.floorSnapshot(now: 1), FloorSnapshot(holder: 2, delegate: 3))
        // The owner takes it back (0xFE).
        XCTAssertEqual(try m.control(.takeBack, by: 2, now: 2), .floor([.floorWithdrawn(from: 3, reason: .handOverEnded, by: 2), .stateChanged]))
        XCTAssertNil(m.delegate)
        XCTAssertTrue(m.canDriveScreen(2))
        // The temporary holder returns it (0xFF).
        _ = try m.handOver(to: 3, by: 2, now: 3)
        XCTAssertEqual(try m.control(.returnFloor, by: 3, now: 4), .floor([.floorGranted(to: 2, reason: .returned, by: 3), .stateChanged]))
        // Lending to another replaces the delegate.
        _ = try m.handOver(to: 3, by: 2, now: 5)
        XCTAssertEqual(
            try m.handOver(to: 4, by: 2, now: 5),
            [.floorWithdrawn(from: 3, reason: .handOverEnded, by: 2), .floorGranted(to: 4, reason: .handedOver, by: 2), .stateChanged])
        // Someone outside can't end it; the moderator can.
        assertThrowsCode(.floorTaken) { try m.endHandOver(by: 3, now: 6) }
        XCTAssertEqual(
            try m.takeBack(by: 1, now: 6),
            [.floorWithdrawn(from: 4, reason: .handOverEnded, by: 1), .floorGranted(to: 2, reason: .returned, by: 1), .stateChanged])
        // Owner releases while lent: both lose it.
        _ = try m.handOver(to: 3, by: 2, now: 7)
        XCTAssertEqual(try m.releaseFloor(by: 2, now: 8), [.floorWithdrawn(from: 3, reason: .ownerLostFloor, by: 2), .screenToIdle, .stateChanged])
        XCTAssertNil(m.driver)
        // Delegate disconnects: the owner drives again.
        _ = try m.requestFloor(by: 2, now: 9)
        _ = try m.handOver(to: 3, by: 2, now: 9)
        XCTAssertEqual(m.disconnect(connection: 3, now: 10), [.floorGranted(to: 2, reason: .returned, by: 0), .deviceLeft(3), .stateChanged])
        // Moderator withdraws from a delegate: the hand-over ends.
        _ = try m.handOver(to: 4, by: 1, now: 11)
        XCTAssertEqual(
            try m.withdraw(4, by: 1, now: 12),
            [.floorWithdrawn(from: 4, reason: .withdrawn, by: 1), .floorGranted(to: 2, reason: .returned, by: 1), .stateChanged])
        assertThrowsCode(.invalidTarget) { try m.withdraw(4, by: 1, now: 12) }
    }

    // MARK: disconnect, grace, resume

    func testHolderDropGraceAndResumeGetsTheFloorBack() throws {
        var m = makeMeeting(.open, grace: 60)
        let r = try join(&m, 1); try join(&m, 2)
        _ = try m.requestFloor(by: 1, now: 0)
        XCTAssertEqual(m.disconnect(connection: 1, now: 10), [.stateChanged])
        XCTAssertEqual(m.holder, 1, "keeps the floor during the grace period")
        XCTAssertEqual(m.nextDeadline, 70)
        XCTAssertEqual(m.floorSnapshot(now: 30).graceRemainingMs, 40_000)
        XCTAssertEqual(m.deviceSnapshots().first?.connected, false)
        XCTAssertEqual(m.expire(now: 69.9), [])
        // Back on a new connection with the token, before the deadline.
        let back = try m.register(connection: 5, name: "dev1", role: .presenter, resumeToken: r.resumeToken, now: 69.9, newToken: nextToken)
        XCTAssertEqual(back.deviceID, 1)
        XCTAssertTrue(back.resumed)
        XCTAssertTrue(back.floorRestored)
        XCTAssertEqual(back.events, [.floorGranted(to: 1, reason: .restored, by: 0), .stateChanged])
        XCTAssertEqual(m.holder, 1)
        XCTAssertNil(m.nextDeadline)
        XCTAssertTrue(m.canDriveScreen(1))
        XCTAssertEqual(m.deviceID(forConnection: 5), 1)
    }

    func testGraceExpiresToIdle() throws {
        var m = makeMeeting(.open, grace: 60)
        let r = try join(&m, 1)
        _ = try m.requestFloor(by: 1, now: 0)
        _ = m.disconnect(connection: 1, now: 10)
        XCTAssertEqual(m.expire(now: 70), [.screenToIdle, .deviceLeft(1), .stateChanged])
        XCTAssertNil(m.holder)
        XCTAssertTrue(m.devices.isEmpty)
        // Too late: the token no longer works — a new device, no floor.
        let late = try m.register(connection: 2, name: "dev1", role: .presenter, resumeToken: r.resumeToken, now: 71, newToken: nextToken)
        XCTAssertFalse(late.resumed)
        XCTAssertFalse(late.floorRestored)
        XCTAssertNil(m.holder)
    }

    func testAnyCallExpiresOverdueGrace() throws {
        var m = makeMeeting(.open, grace: 5)
        try join(&m, 1); try join(&m, 2)
        _ = try m.requestFloor(by: 1, now: 0)
        _ = m.disconnect(connection: 1, now: 1)
        // The timer was late: the next request still sees the grace period as over.
        let r = try m.requestFloor(by: 2, now: 100)
        XCTAssertEqual(r.ack, .holder)
        XCTAssertEqual(r.events, [.screenToIdle, .deviceLeft(1), .stateChanged])
    }

    func testWrongResumeTokenGetsANewIDAndNoFloor() throws {
        var m = makeMeeting(.open)
        try join(&m, 1)
        _ = try m.requestFloor(by: 1, now: 0)
        _ = m.disconnect(connection: 1, now: 1)
        let other = try m.register(connection: 2, name: "dev1", role: .presenter, resumeToken: token(0xEE), now: 2, newToken: nextToken)
        XCTAssertEqual(other.deviceID, 2)
        XCTAssertFalse(other.resumed)
        XCTAssertFalse(other.floorRestored)
        XCTAssertEqual(m.holder, 1, "the real holder is still in its grace period")
        assertThrowsCode(.floorTaken) { try m.checkCanDrive(2) }
        // Right token, wrong role: also a fresh device.
        var m2 = makeMeeting(.open)
        let r = try join(&m2, 1)
        _ = try m2.requestFloor(by: 1, now: 0)
        _ = m2.disconnect(connection: 1, now: 1)
        let wrongRole = try m2.register(connection: 2, name: "x", role: .moderator, resumeToken: r.resumeToken, now: 2, newToken: nextToken)
        XCTAssertFalse(wrongRole.resumed)
        XCTAssertNotEqual(wrongRole.deviceID, 1)
    }

    func testNonHoldersLeaveAtOnceAndOthersCanTakeOverDuringGrace() throws {
        var m = makeMeeting(.moderated)
        try join(&m, 1, .moderator); try join(&m, 2); try join(&m, 3)
        _ = try m.requestFloor(by: 3, now: 0)
        XCTAssertEqual(m.disconnect(connection: 3, now: 1), [.deviceLeft(3), .stateChanged])
        XCTAssertTrue(m.queue.isEmpty)
        _ = try m.grant(2, by: 1, now: 2)
        _ = m.disconnect(connection: 2, now: 3)
        XCTAssertEqual(m.holder, 2)
        // The moderator hands the floor to someone else during the grace period: the
        // absent holder is gone for good.
        let newcomer = try join(&m, 4).deviceID
        XCTAssertEqual(newcomer, 3, "id 3 was free again")
        let g = try m.grant(newcomer, by: 1, now: 4)
        XCTAssertEqual(g, [.screenToIdle, .floorGranted(to: 3, reason: .granted, by: 1), .deviceLeft(2), .stateChanged])
        XCTAssertNil(m.devices[2])
    }

    func testResumeWhileOldConnectionStillOpenReplacesIt() throws {
        var m = makeMeeting(.open)
        let r = try join(&m, 1)
        _ = try m.requestFloor(by: 1, now: 0)
        let again = try m.register(connection: 9, name: "dev1", role: .presenter, resumeToken: r.resumeToken, now: 1, newToken: nextToken)
        XCTAssertEqual(again.deviceID, 1)
        XCTAssertEqual(again.events, [.closeConnection(1, .replaced), .floorGranted(to: 1, reason: .restored, by: 0), .stateChanged])
        XCTAssertEqual(m.disconnect(connection: 1, now: 2), [], "the replaced connection closing changes nothing")
        XCTAssertEqual(m.holder, 1)
    }

    func testUnregisterHasNoGrace() throws {
        var m = makeMeeting(.open)
        try join(&m, 1)
        _ = try m.requestFloor(by: 1, now: 0)
        XCTAssertEqual(m.unregister(connection: 1, now: 1), [.screenToIdle, .deviceLeft(1), .stateChanged])
        XCTAssertNil(m.holder)
    }

    func testZeroGraceDropsAtOnce() throws {
        var m = makeMeeting(.open, grace: 0)
        try join(&m, 1)
        _ = try m.requestFloor(by: 1, now: 0)
        XCTAssertEqual(m.disconnect(connection: 1, now: 1), [.screenToIdle, .deviceLeft(1), .stateChanged])
    }

    func testSnapshotCombinesFloorDevicesAndScreen() throws {
        var m = makeMeeting(.moderated)
        try join(&m, 1, .moderator); try join(&m, 2); try join(&m, 3)
        _ = try m.grant(2, by: 1, now: 0)
        _ = try m.requestFloor(by: 3, now: 0)
        let screen = ScreenSnapshot(content: ContentSnapshot(id: cid(1), name: "a.pdf", kind: .pdf), page: 2, pageCount: 9)
        let s = m.snapshot(room: "R", revision: 4, screen: screen, now: 0)
        XCTAssertEqual(s.floor, FloorSnapshot(holder: 2, queue: [3]))
        XCTAssertEqual(s.devices.map(\.id), [1, 2, 3])
        XCTAssertEqual(s.devices.map(\.role), [.moderator, .presenter, .presenter])
        XCTAssertEqual(s.screen, screen)
        XCTAssertEqual(try Snapshot.fromJSON(s.jsonBytes()), s)
    }
}
