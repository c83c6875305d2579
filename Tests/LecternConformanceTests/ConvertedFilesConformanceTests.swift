import Crypto
import Foundation
import LecternTestSupport
import XCTest

/// §30, converted files, checked in raw frames: an office document uploaded as any file is
/// answered with conversion-progress frames carrying the upload-begin's tag and, as the
/// upload-finish's one reply, upload-stored of a PDF; showing it before is
/// `stillConverting`; conversion-cancel; a zip bomb refused with its limit.
final class ConvertedFilesConformanceTests: ConformanceTestCase {
    struct Upload {
        let id: [UInt8]
        let beginTag: UInt16
        let finishTag: UInt16
    }

    /// Sends `path` whole (kind 0, no proof) and its upload-finish; returns the tags.
    func send(_ p: RawPeer, path: String) throws -> Upload {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let id = Array(SHA256.hash(data: data))
        let n = Array((path as NSString).lastPathComponent.utf8)
        let begin = p.request(0x38, id + u64(UInt64(data.count)) + [0] + [UInt8](repeating: 0, count: 32) + u16(UInt16(n.count)) + n)
        let ready = try XCTUnwrap(p.reply(to: begin))
        XCTAssertEqual(ready.command, 0x39)
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + 1 << 20)
            p.request(0x3A, id + u64(UInt64(offset)) + data[offset..<end])
            offset = end
        }
        return Upload(id: id, beginTag: begin, finishTag: p.request(0x3B, id))
    }

    func testC99AnOfficeDocumentIsStoredThenAnsweredAsAPdfWithProgressOnTheBeginsTag() throws {
        try start()
        let p = try join("Ana")
        let deck = harness.dir + "/talk.bin"   // the name plays no part: the content decides
        try OfficeDocuments.pptx(deck, slides: 2)
        let u = try send(p, path: deck)
        var progress: [RawFrame] = []
        var sawQueue = false
        var reply: RawFrame?
        while let f = p.next(timeout: 60) {
            if f.command == 0x15 {
                if let list = f.json?["conversions"] as? [[String: Any]], let first = list.first {
                    sawQueue = true
                    XCTAssertEqual(first["format"] as? String, "pptx")
                    XCTAssertEqual(first["name"] as? String, "talk.bin")
                }
                continue
            }
            if f.command == 0x3E { progress.append(f) }
            if f.tag == u.finishTag {
                reply = f
                break
            }
        }
        XCTAssertFalse(progress.isEmpty, "conversion-progress frames")
        for f in progress {
            XCTAssertEqual(f.tag, u.beginTag, "conversion-progress carries the upload-begin's tag")
            XCTAssertEqual(Array(f.body[0..<32]), u.id)
            XCTAssertEqual(String(decoding: f.body[51..<(51 + Int(f.body[50]))], as: UTF8.self), "pptx")
        }
        XCTAssertEqual(progress.first?.body[32], 1, "first: stored, waiting")
        XCTAssertTrue(sawQueue, "the state's conversions listed it")
        let stored = try XCTUnwrap(reply)
        XCTAssertEqual(stored.command, 0x3C, "upload-stored: \(String(describing: stored.error))")
        XCTAssertEqual(stored.body[32], 1, "kind 1, a PDF")
        XCTAssertEqual(be32(stored.body, 41), 2, "its page count")
        XCTAssertEqual(p.reply(to: p.request(0x06))?.command, 0x07, "floor-ack (an open room)")
        XCTAssertEqual(p.reply(to: p.request(0x30, u.id + u32(2)))?.command, 0x31)
        let s = try XCTUnwrap(p.reply(to: p.request(0x16))?.json)
        let content = (s["screen"] as? [String: Any])?["content"] as? [String: Any]
        XCTAssertEqual(content?["kind"] as? String, "pdf")
        XCTAssertEqual(content?["convertedFrom"] as? String, "pptx")
    }

    func testC100ShowingAnUploadStillConvertingIsStillConverting() throws {
        try start { $0.convert.warm = false }
        let p = try join("Ana")
        XCTAssertEqual(p.reply(to: p.request(0x06))?.command, 0x07, "floor-ack (an open room)")
        let deck = harness.dir + "/deck.odp"
        try OfficeDocuments.odp(deck, slides: 2)
        let u = try send(p, path: deck)
        // Once it is stored (the first conversion-progress), it is not yet a deck to show.
        while let f = p.next(timeout: 30), f.command != 0x3E {}
        let shown = p.request(0x30, u.id + u32(1))
        let e = expectFailure(p.reply(to: shown), in: 0x14, code: 0x040A)
        XCTAssertEqual(e?.closes, false)
        XCTAssertTrue(e?.message.contains("deck.odp is still being converted") ?? false, e?.message ?? "")
        XCTAssertEqual(p.reply(to: u.finishTag, timeout: 60)?.command, 0x3C)
    }

    func testC101ConversionCancel() throws {
        try start { $0.convert.warm = false }
        let p = try join("Ana")
        let nothing = expectFailure(p.reply(to: p.request(0x3F, [UInt8](repeating: 7, count: 32))), in: 0x14, code: 0x1307)
        XCTAssertEqual(nothing?.closes, false)
        let deck = harness.dir + "/deck.pptx"
        try OfficeDocuments.pptx(deck, slides: 2)
        let u = try send(p, path: deck)
        while let f = p.next(timeout: 30), f.command != 0x3E {}
        XCTAssertEqual(p.reply(to: p.request(0x3F, u.id))?.command, 0x13, "ok")
        let e = expectFailure(p.reply(to: u.finishTag, timeout: 60), in: 0x14, code: 0x1306)
        XCTAssertTrue(e?.message.contains("its uploader cancelled it") ?? false, e?.message ?? "")
    }

    func testC102AZipBombIsRefusedWithTheUnpackedLimit() throws {
        try start { $0.convert.maxUnpackedMB = 10 }
        let p = try join("Ana")
        let bomb = harness.dir + "/bomb.pptx"
        try OfficeDocuments.zipBombPptx(bomb, unpackedMB: 30)
        let u = try send(p, path: bomb)
        let e = expectFailure(p.reply(to: u.finishTag, timeout: 60), in: 0x14, code: 0x1302)
        XCTAssertEqual(e?.detail, 10_000_000)
        XCTAssertTrue(e?.message.contains("unpacks to more than the 10 MB a document may") ?? false, e?.message ?? "")
    }

    // MARK: the first page first (§30.8)

    /// Uploads a 40-slide `.pptx` with a photo per slide and reads its frames up to
    /// conversion-progress stage 3, which it returns; from then the converter's processes
    /// (those of this test's own sandboxes) are held with SIGSTOP, so that the whole deck
    /// can't overtake the checks however fast the machine (`release` lets it go on).
    func heldAtFirstPage(_ p: RawPeer) throws -> (upload: Upload, first: RawFrame) {
        let deck = harness.dir + "/deck.pptx"
        try OfficeDocuments.pptx(deck, slides: 40, pictureSize: 1024)
        let u = try send(p, path: deck)
        var first: RawFrame?
        while let f = p.next(timeout: 60) {
            XCTAssertNotEqual(f.tag, u.finishTag, "no reply to the upload-finish before the first page: \(f) \(String(describing: f.error))")
            if f.tag == u.finishTag { break }
            if f.command == 0x3E, f.body[32] == 3 {
                first = f
                break
            }
        }
        XCTAssertFalse(ProcessTree.signal(SIGSTOP, naming: sandboxes).isEmpty, "the converter's processes, held")
        return (u, try XCTUnwrap(first, "conversion-progress stage 3"))
    }

    var sandboxes: String { harness.dir + "/data/convert" }
    func release() { ProcessTree.signal(SIGCONT, naming: sandboxes) }

    func testC103AConvertedDecksFirstPageComesFirst() throws {
        try start()
        defer { release() }   // never left held
        let p = try join("Ana")
        XCTAssertEqual(p.reply(to: p.request(0x06))?.command, 0x07, "floor-ack (an open room)")
        let (u, first) = try heldAtFirstPage(p)
        XCTAssertEqual(first.tag, u.beginTag, "stage 3 carries the upload-begin's tag")
        XCTAssertEqual(Array(first.body[0..<32]), u.id)
        XCTAssertEqual(be32(first.body, 34), 1, "one page ready")
        XCTAssertEqual(be32(first.body, 38), 40, "the pages in all")

        XCTAssertEqual(p.reply(to: p.request(0x30, u.id + u32(1)))?.command, 0x31, "present-ok of page 1")
        let s = try XCTUnwrap(p.reply(to: p.request(0x16))?.json)
        let screen = s["screen"] as? [String: Any]
        XCTAssertEqual(screen?["page"] as? Int, 1)
        XCTAssertEqual(screen?["pageCount"] as? Int, 1, "the pages that exist")
        let conversion = (s["conversions"] as? [[String: Any]])?.first
        XCTAssertEqual(conversion?["ready"] as? Int, 1)
        XCTAssertEqual(conversion?["total"] as? Int, 40)

        release()
        let stored = try XCTUnwrap(p.reply(to: u.finishTag, timeout: 120), "the upload-finish's one reply")
        XCTAssertEqual(stored.command, 0x3C, "upload-stored: \(String(describing: stored.error))")
        XCTAssertEqual(be32(stored.body, 41), 40, "every page")
        let after = try XCTUnwrap(p.reply(to: p.request(0x16))?.json)["screen"] as? [String: Any]
        XCTAssertEqual(after?["page"] as? Int, 1, "the same page")
        XCTAssertEqual(after?["pageCount"] as? Int, 40)
    }

    func testC104APagePastThoseReadyIsStillConvertingAndTheWallStays() throws {
        try start()
        defer { release() }
        let p = try join("Ana")
        XCTAssertEqual(p.reply(to: p.request(0x06))?.command, 0x07, "floor-ack (an open room)")
        let (u, _) = try heldAtFirstPage(p)
        XCTAssertEqual(p.reply(to: p.request(0x30, u.id + u32(1)))?.command, 0x31, "present-ok of page 1")

        let next = expectFailure(p.reply(to: p.request(0x0C, [0x01, 0, 0, 0] + u32(0))), in: 0x0E, code: 0x1308)
        XCTAssertEqual(next?.closes, false)
        XCTAssertEqual(next?.detail, 1, "the pages ready")
        XCTAssertTrue(next?.message.hasPrefix("Slide 2 of deck.pptx is still being converted") ?? false, next?.message ?? "")
        let goto = expectFailure(p.reply(to: p.request(0x0C, [0x03, 0, 0, 0] + u32(12))), in: 0x0E, code: 0x1308)
        XCTAssertTrue(goto?.message.hasPrefix("Slide 12 of deck.pptx") ?? false, goto?.message ?? "")
        expectFailure(p.reply(to: p.request(0x30, u.id + u32(3))), in: 0x14, code: 0x1308)
        let s = try XCTUnwrap(p.reply(to: p.request(0x16))?.json)["screen"] as? [String: Any]
        XCTAssertEqual(s?["page"] as? Int, 1, "the wall stays")

        release()
        XCTAssertEqual(p.reply(to: u.finishTag, timeout: 120)?.command, 0x3C)
        XCTAssertEqual(p.reply(to: p.request(0x0C, [0x01, 0, 0, 0] + u32(0)))?.command, 0x0D, "next, once the whole deck exists")
    }
}
