import LecternModel
import LecternProtocol
import LecternTestKit
import XCTest

/// sound-set's body (§23.2): two bytes, 255 = leave as it is; a level past 100 decodes (the
/// room refuses it with volumeOutOfRange), a mute byte other than 0, 1, 255 does not.
final class SoundMessageTests: XCTestCase {
    func decode(_ body: [UInt8]) throws -> Message {
        try Message.decode(header: FrameHeader(command: Command.soundSet.rawValue, deviceID: 1, tag: 1, length: UInt32(8 + body.count)), body: body)
    }

    func testTheBodyAndItsLimits() throws {
        XCTAssertEqual(Message.soundSet(SoundSetting(level: 40)).encodeBody(), [40, 255])
        XCTAssertEqual(Message.soundSet(SoundSetting(muted: true)).encodeBody(), [255, 1])
        XCTAssertEqual(try decode([100, 0]), .soundSet(SoundSetting(level: 100, muted: false)))
        XCTAssertEqual(try decode([150, 255]), .soundSet(SoundSetting(level: 150, muted: nil)))
        assertThrowsCode(.malformedBody) { try decode([40, 2]) }
        assertThrowsCode(.malformedBody) { try decode([40]) }
        assertThrowsCode(.malformedBody) { try decode([40, 0, 0]) }
        XCTAssertEqual(Command.soundSet.rawValue, 0xA0)
        XCTAssertEqual(Command.soundSetOK.rawValue, 0xA1)
        XCTAssertEqual(ErrorCode.volumeOutOfRange.rawValue, 0x0D00)
    }
}
