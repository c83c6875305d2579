import Foundation
import LecternModel
import LecternProtocol
@testable import LecternRoom
import XCTest

/// `state.json` read back part by part (issue 25, finding 8): a file cut short, garbage,
/// empty, or with one part of the wrong type loses only what doesn't parse, and names it.
final class SavedStateFileTests: XCTestCase {
    /// A state with a page, a holder, the sound, a timer and whiteboards, as the service writes it.
    static func full() -> SavedState {
        var s = SavedState()
        s.content = String(repeating: "ab", count: 32)
        s.page = 3
        s.blank = "none"
        s.holder = SavedState.Holder(id: 2, name: "Ana \u{201C}quoted\u{201D}, {braces}", role: "presenter", resumeToken: String(repeating: "0f", count: 16))
        s.sound = SavedSound(level: 40, muted: true)
        var t = TalkTimer(warnMinutes: 3)
        t.accumulatedMs = 65_000
        s.timer = t
        s.whiteboards = [2, 1]
        return s
    }

    static func encoded(_ s: SavedState) throws -> [UInt8] {
        let e = JSONEncoder()
        e.outputFormatting = .sortedKeys
        return [UInt8](try e.encode(s))
    }

    func testAWholeFileIsRestoredWhole() throws {
        let s = Self.full()
        let r = SavedStateFile.read(Data(try Self.encoded(s)))
        XCTAssertEqual(r.state, s)
        XCTAssertEqual(r.lost, [])
        XCTAssertFalse(r.damaged)
        // Spaces and newlines between parts (an admin's pretty-printed copy) are fine.
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        XCTAssertEqual(SavedStateFile.read(try e.encode(s)).state, s)
    }

    /// Cut after every byte: never a crash; whatever parts were whole before the cut come
    /// back (sorted keys: blank, content, holder, page, sound, timer, whiteboards), and the
    /// file is damaged.
    func testAFileCutAnywhereKeepsThePartsBeforeTheCut() throws {
        let bytes = try Self.encoded(Self.full())
        for n in 0..<bytes.count {
            let r = SavedStateFile.read(Data(bytes[..<n]))
            XCTAssertTrue(r.damaged, "cut at \(n)")
            XCTAssertEqual(r.lost.first?.part, "file", "cut at \(n)")
            // Wherever the cut falls (a key, a value, between them), the file says it ends.
            let why = r.lost.first?.why ?? ""
            XCTAssertTrue(why.hasPrefix(n == 0 ? "the file is empty" : "the file ends at byte \(n)"), "cut at \(n): \(why)")
        }
        let cut = bytes.count - 20   // inside "whiteboards"
        let r = SavedStateFile.read(Data(bytes[..<cut]))
        XCTAssertEqual(r.state?.timer, Self.full().timer, "the parts before the cut")
        XCTAssertEqual(r.state?.page, 3)
        XCTAssertEqual(r.state?.content, Self.full().content)
        XCTAssertEqual(r.state?.holder, Self.full().holder)
        XCTAssertNil(r.state?.whiteboards, "the part cut in the middle")
        XCTAssertTrue(r.lost[0].why.contains("ends at byte"), r.lost[0].why)
    }

    func testGarbageAndEmptyAreDamagedAndRestoreNothing() {
        for (bytes, why) in [("", "empty"), ("\u{0}\u{1}garbage", "not a JSON object"), ("[1,2]", "not a JSON object"), ("{\"page\" 3}", "':' expected")] {
            let r = SavedStateFile.read(Data(bytes.utf8))
            XCTAssertNil(r.state, bytes)
            XCTAssertTrue(r.damaged, bytes)
            XCTAssertTrue(r.lost.first?.why.contains(why) == true, "\(bytes): \(r.lost)")
        }
    }

    /// One part of the wrong type: only it is lost, named with why; the rest is restored.
    func testOnePartOfTheWrongTypeLosesOnlyThatPart() throws {
        let s = Self.full()
        for (part, value, kept) in [("timer", "\"soon\"", \SavedState.page), ("page", "\"three\"", \SavedState.page), ("whiteboards", "{\"a\":1}", \SavedState.page)]
            as [(String, String, KeyPath<SavedState, Int>)]
        {
            var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try Self.encoded(s))) as? [String: Any])
            object[part] = try JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed)
            let r = SavedStateFile.read(try JSONSerialization.data(withJSONObject: object))
            XCTAssertTrue(r.damaged, part)
            XCTAssertEqual(r.lost.map(\.part), [part])
            XCTAssertTrue(r.lost[0].why.contains("expected"), r.lost[0].why)
            var expected = s
            switch part {
            case "timer": expected.timer = nil
            case "page": expected.page = 0; expected.content = nil   // a content without its page is not restored
            default: expected.whiteboards = nil
            }
            XCTAssertEqual(r.state, expected, part)
            _ = kept
        }
        // A part inside a part of the wrong type: the path is named.
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try Self.encoded(s))) as? [String: Any])
        object["sound"] = ["level": "loud", "muted": true]
        let r = SavedStateFile.read(try JSONSerialization.data(withJSONObject: object))
        XCTAssertEqual(r.lost.map(\.part), ["sound"])
        XCTAssertTrue(r.lost[0].why.contains("level"), r.lost[0].why)
        XCTAssertEqual(r.state?.timer, s.timer)
    }

    /// Keys of a later version are not damage; a file with no parts is nothing to restore.
    func testUnknownKeysAreIgnored() throws {
        var bytes = try Self.encoded(Self.full())
        bytes.removeLast()
        bytes += Array(",\"future\":{\"x\":[1,2,{\"y\":\"}\"}]}}".utf8)
        let r = SavedStateFile.read(Data(bytes))
        XCTAssertEqual(r.state, Self.full())
        XCTAssertFalse(r.damaged)
        XCTAssertNil(SavedStateFile.read(Data("{}".utf8)).state)
        XCTAssertFalse(SavedStateFile.read(Data("{}".utf8)).damaged)
    }
}
