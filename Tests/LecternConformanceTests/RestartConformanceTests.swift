import Foundation
import LecternModel
import LecternTestSupport
import XCTest

/// Restarts and coming back (C83–C87), in bytes: the state's epoch, a revision that starts
/// again in a new epoch, and a floor holder back after its grace period told why.
final class RestartConformanceTests: ConformanceTestCase {
    /// The epoch and revision of a state frame's JSON.
    func mark(_ s: [String: Any]?, file: StaticString = #filePath, line: UInt = #line) throws -> (epoch: String, revision: Int) {
        let s = try XCTUnwrap(s, "a state", file: file, line: line)
        let epoch = try XCTUnwrap(s["epoch"] as? String, "the state's epoch: \(s.keys.sorted())", file: file, line: line)
        let revision = try XCTUnwrap(s["revision"] as? Int, file: file, line: line)
        return (epoch, revision)
    }

    func testC83AndC84TheEpochIsTheRunAndTheRevisionStartsAgainInANewOne() throws {
        let a = try join("Ana")
        var seen: [(epoch: String, revision: Int)] = []
        // A long meeting in short: forty floor changes, each a new revision.
        for _ in 0..<20 {
            a.request(0x06)
            XCTAssertEqual(a.reply()?.command, 0x07)
            seen.append(try mark(a.statePush()))
            a.request(0x0A)
            XCTAssertEqual(a.reply()?.command, 0x13)
            seen.append(try mark(a.statePush()))
        }
        let first = seen[0].epoch
        XCTAssertEqual(first.count, 16, "16 digits: \(first)")
        XCTAssertTrue(first.allSatisfy { "0123456789abcdef".contains($0) }, "lower-case hex: \(first)")
        XCTAssertTrue(seen.allSatisfy { $0.epoch == first }, "one epoch while the service runs")
        XCTAssertEqual(seen.map(\.revision), seen.map(\.revision).sorted(), "the revision never goes down within an epoch")
        a.request(0x16)
        let replied = try mark(a.reply()?.json)
        XCTAssertEqual(replied.epoch, first, "the reply to state-request: the same epoch")
        let before = try XCTUnwrap(seen.last?.revision)

        try harness.restart()
        let b = try join("Ben")
        b.request(0x16)
        let after = try mark(b.reply()?.json)
        XCTAssertNotEqual(after.epoch, first, "a new run, a new epoch")
        XCTAssertEqual(after.epoch.count, 16)
        XCTAssertLessThan(after.revision, before, "the revision started again (\(after.revision) after \(before)): only the epoch tells")
    }

    func testC86AHolderBackAfterItsGracePeriodIsToldWhyOnce() throws {
        try start(.open) { $0.gracePeriod = 1 }
        let watcher = try join("Ben")
        let a = try join("Ana")
        a.request(0x06)
        XCTAssertEqual(a.reply()?.body, [1, 0, 0])
        let token = a.token
        a.socket.close()   // dropped in the middle of the talk, not unregistered
        // The grace period runs out: the floor is free again, Ana is gone.
        var freed = false
        while let s = watcher.statePush(timeout: 10) {
            let floor = s["floor"] as? [String: Any]
            let devices = s["devices"] as? [[String: Any]] ?? []
            if floor?["holder"] is NSNull, devices.count == 1 { freed = true; break }
        }
        XCTAssertTrue(freed, "the grace period ran out")

        let back = try connect()
        let t = back.request(0x01, registerBody(back, name: "Ana", token: token))
        let ok = try XCTUnwrap(back.next())
        XCTAssertEqual(ok.command, 0x02, "register-ok: \(ok)")
        XCTAssertEqual(ok.tag, t)
        XCTAssertEqual(ok.body[2], 0, "not resumed, no floor")
        back.device = ok.body[0]
        let state = try XCTUnwrap(back.next())
        XCTAssertEqual(state.command, 0x15, "the state first: \(state)")
        XCTAssertTrue((state.json?["floor"] as? [String: Any])?["holder"] is NSNull)
        let told = expectFailure(back.next(), in: 0x14, code: 0x1101)
        XCTAssertEqual(told?.closes, false, "the connection stays open")
        XCTAssertEqual(told?.detail, 1000, "the grace period in ms")
        XCTAssertEqual(told?.message, "You were away longer than 1 s; the floor was released.")
        XCTAssertTrue(back.drain().allSatisfy { $0.command != 0x14 }, "nothing more")

        // Once: the same token again (a second tab) is not told again.
        back.request(0x04)
        let again = try connect()
        again.request(0x01, registerBody(again, name: "Ana", token: token))
        let ok2 = try XCTUnwrap(again.next())
        XCTAssertEqual(ok2.command, 0x02)
        again.device = ok2.body[0]
        XCTAssertTrue(again.drain().allSatisfy { $0.command != 0x14 }, "told once")
    }

    func testC87AHolderBackInTimeIsRestoredAndNotToldAnything() throws {
        try start(.open) { $0.gracePeriod = 60 }
        let a = try join("Ana")
        a.request(0x06)
        XCTAssertEqual(a.reply()?.body, [1, 0, 0])
        let token = a.token
        a.socket.close()
        let back = try connect()
        back.request(0x01, registerBody(back, name: "Ana", token: token))
        let ok = try XCTUnwrap(back.next())
        XCTAssertEqual(ok.command, 0x02)
        XCTAssertEqual(ok.body[2], 0b11, "resumed, floor restored")
        back.device = ok.body[0]
        let frames = back.drain()
        XCTAssertTrue(frames.contains { $0.command == 0x08 && $0.body == [5, 0] }, "floor-granted reason 5")
        XCTAssertFalse(frames.contains { $0.command == 0x14 }, "no floorExpired: \(frames)")
    }
}
