import Crypto
import Foundation
import LecternModel
import LecternTestSupport
import XCTest

/// §30.9 and §30.10, photos and images and the upload path, checked in raw frames: a photo
/// answered as a one-page PDF, a HEIC that is not a clip, images-deck and its refusals, a
/// decompression bomb's limit, the real reason for an unsupported file, the upload limit
/// in the state.
final class ImagesConformanceTests: ConformanceTestCase {
    /// The failure or upload-stored that ended an upload, and its conversion-progress frames.
    func outcome(_ frames: [RawFrame]) -> (last: RawFrame?, progress: [RawFrame]) {
        (frames.last, frames.filter { $0.command == 0x3E })
    }

    func images(_ names: [String]) throws -> [String] {
        let colours = [RGB(200, 30, 30), RGB(30, 190, 40), RGB(30, 50, 210), RGB(240, 220, 20)]
        return try names.enumerated().map { i, name in
            try Fixtures.image(Frame(width: 320, height: 240, color: colours[i % colours.count]), in: harness.dir, name: name)
        }
    }

    /// images-deck's body: u16 count, the ids, u16 name length, the name.
    func imagesDeck(_ ids: [[UInt8]], name: String) -> [UInt8] {
        let n = Array(name.utf8)
        return u16(UInt16(ids.count)) + ids.flatMap { $0 } + u16(UInt16(n.count)) + n
    }

    func testC105APhotoIsAnsweredAsAOnePagePDFWithItsFormat() throws {
        try start()
        let p = try join("Ana")
        let files = try images(["a.jpg", "b.png", "c.webp", "d.gif"])
        for (file, format) in zip(files, ["jpeg", "png", "webp", "gif"]) {
            // The name plays no part: the content decides.
            let (id, frames) = try upload(p, path: file, name: "photo.bin")
            let (last, progress) = outcome(frames)
            XCTAssertEqual(last?.command, 0x3C, "upload-stored: \(String(describing: last?.error))")
            XCTAssertEqual(last?.body[32], 1, "kind 1, a PDF")
            XCTAssertEqual(last.map { be32($0.body, 41) }, 1, "one page")
            XCTAssertFalse(progress.isEmpty, format)
            for f in progress { XCTAssertEqual(String(decoding: f.body[51..<(51 + Int(f.body[50]))], as: UTF8.self), format) }
            XCTAssertEqual(p.reply(to: p.request(0x06))?.command, 0x07, "floor-ack (an open room)")
            XCTAssertEqual(p.reply(to: p.request(0x30, id + u32(1)))?.command, 0x31)
            let s = try XCTUnwrap(p.reply(to: p.request(0x16))?.json)
            let content = (s["screen"] as? [String: Any])?["content"] as? [String: Any]
            XCTAssertEqual(content?["kind"] as? String, "pdf")
            XCTAssertEqual(content?["convertedFrom"] as? String, format)
        }
    }

    func testC106AHEICIsAnImageNotAClip() throws {
        try start()
        let p = try join("Ana")
        let heic = try images(["IMG_0001.heic"])[0]
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: heic)).prefix(12))[4..<8], ArraySlice(Array("ftyp".utf8)), "an ISO BMFF file")
        let (_, frames) = try upload(p, path: heic)
        let last = try XCTUnwrap(outcome(frames).last)
        XCTAssertEqual(last.command, 0x3C, "upload-stored: \(String(describing: last.error))")
        XCTAssertEqual(last.body[32], 1, "kind 1 (a deck), not 2 (a clip)")
    }

    func testC107ImagesDeckMakesOneDeckInTheOrderGivenWithProgressOnItsTag() throws {
        try start()
        let p = try join("Ana")
        let ids = try images(["1.jpg", "2.png", "3.jpg"]).map { try upload(p, path: $0).id }
        let tag = p.request(0x44, imagesDeck(ids, name: "Holiday"))
        var progress: [RawFrame] = []
        var reply: RawFrame?
        while let f = p.next(timeout: 60) {
            if f.command == 0x15 { continue }
            XCTAssertEqual(f.tag, tag, "every frame about it carries its tag")
            if f.command == 0x3E {
                progress.append(f)
                continue
            }
            reply = f
            break
        }
        XCTAssertFalse(progress.isEmpty, "conversion-progress")
        XCTAssertEqual(progress.first.map { String(decoding: $0.body[51..<(51 + Int($0.body[50]))], as: UTF8.self) }, "images")
        let stored = try XCTUnwrap(reply)
        XCTAssertEqual(stored.command, 0x3C, "upload-stored: \(String(describing: stored.error))")
        XCTAssertEqual(stored.body[32], 1)
        XCTAssertEqual(be32(stored.body, 41), 3, "three pages")
        // The same images in the same order: the same deck, at once.
        let again = try XCTUnwrap(p.reply(to: p.request(0x44, imagesDeck(ids, name: "Again"))))
        XCTAssertEqual(again.command, 0x3C)
        XCTAssertEqual(Array(again.body[0..<32]), Array(stored.body[0..<32]))
        // Another order is another deck.
        let reversed = p.request(0x44, imagesDeck(ids.reversed(), name: "Reversed"))
        var other = try XCTUnwrap(p.reply(to: reversed, timeout: 60))
        while other.command == 0x3E { other = try XCTUnwrap(p.reply(to: reversed, timeout: 60)) }
        XCTAssertEqual(other.command, 0x3C)
        XCTAssertNotEqual(Array(other.body[0..<32]), Array(stored.body[0..<32]))
    }

    func testC108ImagesDeckRefusals() throws {
        try start { $0.convert.imageMaxCount = 3 }
        let p = try join("Ana")
        let photo = try upload(p, path: try images(["p.png"])[0]).id
        let pdf = try upload(p, path: try Fixtures.numberedDeck(count: 1, in: harness.dir)).id
        let notImage = expectFailure(p.reply(to: p.request(0x44, imagesDeck([photo, pdf], name: "x"))), in: 0x14, code: 0x1380)
        XCTAssertEqual(notImage?.detail, 2, "its position")
        XCTAssertEqual(notImage?.closes, false)
        expectFailure(p.reply(to: p.request(0x44, imagesDeck([photo, [UInt8](repeating: 9, count: 32)], name: "x"))), in: 0x14, code: 0x0301)
        let many = expectFailure(p.reply(to: p.request(0x44, imagesDeck(Array(repeating: photo, count: 4), name: "x"))), in: 0x14, code: 0x1381)
        XCTAssertEqual(many?.detail, 3, "the limit")
        let none = expectFailure(p.reply(to: p.request(0x44, u16(0) + u16(1) + [0x78])), in: 0x14, code: 0x0003)
        XCTAssertEqual(none?.closes, true)
    }

    func testC109ADecompressionBombIsRefusedWithTheMegapixelLimit() throws {
        try start()
        let p = try join("Ana")
        let bomb = try Fixtures.pngClaiming(width: 100_000, height: 100_000, in: harness.dir)
        let (id, frames) = try upload(p, path: bomb)
        let e = expectFailure(outcome(frames).last, in: 0x14, code: 0x1382)
        XCTAssertEqual(e?.detail, 250)
        XCTAssertEqual(e?.closes, false)
        XCTAssertTrue(e?.message.contains("more than the 250 megapixels an image may have") ?? false, e?.message ?? "")
        let s = try XCTUnwrap(p.reply(to: p.request(0x16))?.json)
        XCTAssertEqual((s["conversions"] as? [Any])?.count, 0, "nothing left converting")
        XCTAssertEqual(p.reply(to: p.request(0x06))?.command, 0x07)
        expectFailure(p.reply(to: p.request(0x30, id + u32(1))), in: 0x14, code: 0x0301)
    }

    func testC110AnUnsupportedFileSaysWhatIsShownAndWhatToDo() throws {
        try start()
        let p = try join("Ana")
        let text = harness.dir + "/agenda.txt"
        try Data("1. Welcome\n2. Numbers\n".utf8).write(to: URL(fileURLWithPath: text))
        let e = expectFailure(outcome(try upload(p, path: text).frames).last, in: 0x14, code: 0x0406)
        XCTAssertTrue(e?.message.hasSuffix("Export your slides as PDF and try again.") ?? false, e?.message ?? "")
        XCTAssertTrue(e?.message.contains("photos and images (JPEG, PNG, WebP, GIF, HEIC/HEIF)") ?? false, e?.message ?? "")
    }

    func testC111TheStateAnnouncesTheUploadLimitInTheAdminsUnits() throws {
        try start { $0.maxUploadMB = 100 }
        let p = try join("Ana")
        let s = try XCTUnwrap(p.reply(to: p.request(0x16))?.json)
        let uploads = try XCTUnwrap(s["uploads"] as? [String: Any])
        XCTAssertEqual(uploads["maxFileBytes"] as? Int, 104_857_600)
        XCTAssertEqual(uploads["maxFileText"] as? String, "100 MB")
        let n = Array("big.pdf".utf8)
        let begin = p.request(0x38, [UInt8](repeating: 1, count: 32) + u64(104_857_601) + [0] + [UInt8](repeating: 0, count: 32) + u16(UInt16(n.count)) + n)
        let e = expectFailure(p.reply(to: begin), in: 0x14, code: 0x0401)
        XCTAssertEqual(e?.detail, 104_857_600)
        XCTAssertEqual(e?.message, "The file is larger than the 100 MB limit.")
    }

    func testC113AnImageSetIsNeverAnUpload() throws {
        try start()
        let p = try join("Ana")
        let photo = try upload(p, path: try images(["p.png"])[0]).id
        let hex = photo.map { String(format: "%02x", $0) }.joined()
        let forged = harness.dir + "/set.txt"
        try Data("lectern-image-set-v1\n\(hex)\tp.png\n".utf8).write(to: URL(fileURLWithPath: forged))
        expectFailure(outcome(try upload(p, path: forged).frames).last, in: 0x14, code: 0x0406)
    }
}
