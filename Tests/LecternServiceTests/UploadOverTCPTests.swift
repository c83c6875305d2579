import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

final class UploadOverTCPTests: XCTestCase {
    /// A valid PDF of about `megabytes` MiB: a small deck followed by comment lines after
    /// %%EOF (which readers ignore), so uploads span several chunks.
    func bigPDF(megabytes: Double) throws -> String {
        let dir = Fixtures.tempDir("big")
        let path = try Fixtures.numberedDeck(count: 3, in: dir)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        var g = SystemRandomNumberGenerator()
        let target = Int(megabytes * 1048576)
        while data.count < target {
            let line = "%" + String((0..<100).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement(using: &g)! }) + "\n"
            data.append(contentsOf: Array(line.utf8))
        }
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// upload-begin without a possession proof; returns the id, the reply and the begin's tag.
    func begin(_ c: LecternConnection, _ data: Data, name: String = "deck.pdf") throws -> (ContentID, UploadReady, UInt16) {
        let id = ContentHasher.id(of: [UInt8](data))
        let tag = c.send(.uploadBegin(UploadBegin(content: id, size: UInt64(data.count), kind: nil, proof: nil, name: name)))
        guard case .uploadReady(let ready) = try c.reply(tag: tag) else { throw LecternConnection.ClientError.unexpected("ready") }
        return (id, ready, tag)
    }

    func testAnInterruptedUploadResumesFromTheLastStoredByte() throws {
        let h = try ServiceHarness()
        let path = try bigPDF(megabytes: 6)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let first = try h.presenter("A")
        let (id, ready, beginTag) = try begin(first, data)
        XCTAssertEqual(ready.status, .sendFrom); XCTAssertEqual(ready.offset, 0)
        // Send 4 MiB, wait until the service says it has them (the progress message), then drop.
        for i in 0..<4 {
            first.send(.uploadChunk(UploadChunk(content: id, offset: UInt64(i << 20), data: [UInt8](data[(i << 20)..<((i + 1) << 20)]))))
        }
        // Progress comes every 1/16 of the file (docs/protocol.md §12.1): read it up to 4 MiB.
        var stored: UInt64 = 0
        while stored < 4 << 20 {
            guard case .uploadProgress(_, let got) = try first.reply(tag: beginTag), got > stored else { return XCTFail("no progress") }
            stored = got
        }
        XCTAssertEqual(stored, 4 << 20)
        first.close()

        // Another connection (the same device reconnecting) continues at 4 MiB.
        let second = try h.presenter("A again")
        var progress: [UInt64] = []
        let result = try second.upload(path: path) { sent, _ in progress.append(sent) }
        XCTAssertEqual(progress.first, 4 << 20, "the upload did not resume where it stopped")
        XCTAssertEqual(progress.last, UInt64(data.count))
        XCTAssertEqual(result.content, id)
        XCTAssertEqual(result.pageCount, 3)
        let storedFile = try Data(contentsOf: URL(fileURLWithPath: h.service.store.path(of: id.hex)))
        XCTAssertEqual(storedFile, data)
        // The same file again is not sent again (a valid possession proof)...
        let third = try h.presenter("C")
        var resent: [UInt64] = []
        _ = try third.upload(path: path) { sent, _ in resent.append(sent) }
        XCTAssertEqual(resent, [UInt64(data.count)])
        // ...but knowing the id alone is not enough to claim it: without a proof, send from 0.
        let (_, noProof, _) = try begin(third, data)
        XCTAssertEqual(noProof.status, .sendFrom)
        XCTAssertEqual(noProof.offset, 0)
    }

    func testACorruptedUploadIsRejectedByItsHash() throws {
        let h = try ServiceHarness()
        let c = try h.presenter("A")
        let path = try Fixtures.numberedDeck(count: 2, in: Fixtures.tempDir("c"))
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let (id, _, _) = try begin(c, data)
        var corrupted = [UInt8](data)
        corrupted[corrupted.count / 2] ^= 0xFF
        c.send(.uploadChunk(UploadChunk(content: id, offset: 0, data: corrupted)))
        XCTAssertServerError(.hashMismatch, try c.request(.uploadFinish(content: id)))
        XCTAssertNil(h.service.store.item(id.hex))
        XCTAssertServerError(.unknownContent, try h.moderator().present(id))
        // Starting over with the right bytes works.
        XCTAssertEqual(try c.upload(path: path).content, id)
    }

    func testSizeLimitAndQuotaSayWhich() throws {
        let h = try ServiceHarness {
            $0.maxUploadMB = 2; $0.diskQuotaMB = 3
        }
        let c = try h.presenter("A")
        let tooBig = try Data(contentsOf: URL(fileURLWithPath: try bigPDF(megabytes: 2.5)))
        do {
            _ = try begin(c, tooBig)
            XCTFail("a 2.5 MiB file passed a 2 MiB limit")
        } catch let e as LecternConnection.ClientError {
            XCTAssertEqual(e.lecternError?.code, .fileTooLarge)
            XCTAssertTrue(e.description.contains("limit"), e.description)
        }
        // 1.5 MiB fits; another 1.8 MiB fits the size limit but not the 3 MiB quota.
        _ = try c.upload(path: try bigPDF(megabytes: 1.5))
        let second = try Data(contentsOf: URL(fileURLWithPath: try bigPDF(megabytes: 1.8)))
        do {
            _ = try begin(c, second)
            XCTFail("the quota was not enforced")
        } catch let e as LecternConnection.ClientError {
            XCTAssertEqual(e.lecternError?.code, .quotaFull)
            XCTAssertTrue(e.description.lowercased().contains("storage") || e.description.lowercased().contains("quota"), e.description)
        }
    }

    func testNonPDFUploadIsRefusedWithAReason() throws {
        let h = try ServiceHarness()
        let c = try h.presenter("A")
        let dir = Fixtures.tempDir("np")
        let path = dir + "/notes.pdf"
        try Data("just some text, not a PDF".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertServerError(.unsupportedFileType, try c.upload(path: path))
    }

    /// A clip made with the ffmpeg CLI from a test pattern (H.264 unless `codec` says otherwise).
    func clip(_ name: String, codec: [String] = ["-c:v", "libx264", "-pix_fmt", "yuv420p"], extra: [String] = []) throws -> String {
        let path = Fixtures.tempDir("clip") + "/" + name
        let r = try Fixtures.run(
            "ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=320x240:r=25:d=1"] + codec + extra + [path])
        guard r.status == 0 else { throw Fixtures.ToolError(description: "ffmpeg made no \(name): \(r.err)") }
        return path
    }

    /// What FFmpeg plays is a clip, whatever its container: MPEG-TS (by its sync bytes),
    /// Matroska, MP4, MOV, raw Annex B, and AVI (recognised by FFmpeg's own probe), under
    /// any file name; each plays.
    func testClipsInEveryContainerFFmpegReadsAreAccepted() throws {
        let h = try ServiceHarness()
        let c = try h.presenter("A")
        _ = try c.requestFloor()
        for (name, extra) in [("ts.ts", []), ("mkv.mkv", []), ("mp4.mp4", []), ("mov.mov", []), ("raw.h264", ["-f", "h264"]), ("avi.avi", [])] {
            let path = try clip(name, extra: extra)
            let stored = try c.upload(path: path, name: "clip.bin")
            XCTAssertEqual(stored.kind, .clip, name)
            XCTAssertEqual(h.service.store.item(stored.content.hex)?.kind, .clip, name)
            XCTAssertNoThrow(try c.request(.clipPlay(content: stored.content, loop: false)), name)
        }
        // MPEG-2 video in MPEG-TS: not H.264, but FFmpeg decodes it, so it plays too.
        let mpeg2 = try clip("mpeg2.ts", codec: ["-c:v", "mpeg2video"])
        XCTAssertEqual(try c.upload(path: mpeg2).kind, .clip)
    }

    /// A clip FFmpeg reads but that can't play says why (not "not H.264" for a container
    /// problem); a file neither decoder reads is not of a supported type.
    func testRefusedFilesSayTheRealReason() throws {
        let h = try ServiceHarness()
        let c = try h.presenter("A")
        let audio = Fixtures.tempDir("audio") + "/talk.ts"
        let r = try Fixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=1", "-c:a", "mp2", audio])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertThrowsError(try c.upload(path: audio)) { error in
            let e = (error as? LecternConnection.ClientError)?.lecternError
            XCTAssertEqual(e?.code, .unreadableContent)
            XCTAssertEqual(e?.message, "This file can't be played: it has no video.")
        }
        // A truncated MPEG-TS still plays what it holds.
        let ts = try Data(contentsOf: URL(fileURLWithPath: try clip("cut.ts")))
        let cut = Fixtures.tempDir("cut") + "/cut.ts"
        try ts.prefix(ts.count / 2 / 188 * 188 + 100).write(to: URL(fileURLWithPath: cut))
        XCTAssertEqual(try c.upload(path: cut).kind, .clip)
        // A PNG, whatever its name, is a photo: a one-page deck (§30.9); plain text is neither
        // a PDF, a clip, an office document nor an image.
        let png = Fixtures.tempDir("png") + "/slide.pdf"
        try PNG.encode(Frame(width: 64, height: 48, color: .white)).write(to: URL(fileURLWithPath: png))
        let photo = try c.upload(path: png)
        XCTAssertEqual(photo.kind, .pdf)
        XCTAssertEqual(photo.pageCount, 1)
        let text = Fixtures.tempDir("text") + "/slide.pdf"
        try Data("Slide 1: welcome\n".utf8).write(to: URL(fileURLWithPath: text))
        XCTAssertServerError(.unsupportedFileType, try c.upload(path: text))
    }

    /// A PDF whose `%PDF-` header is missing, or comes after the first KiB, is a PDF when
    /// poppler opens it.
    func testPDFsWithoutAHeaderThatPopplerOpensAreAccepted() throws {
        let h = try ServiceHarness()
        let c = try h.presenter("A")
        let dir = Fixtures.tempDir("nohdr")
        let deck = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.numberedDeck(count: 3, in: dir)))
        let headerLine = deck.firstIndex(of: UInt8(ascii: "\n"))!
        let stripped = dir + "/stripped.pdf", late = dir + "/late.pdf"
        try deck.suffix(from: headerLine + 1).write(to: URL(fileURLWithPath: stripped))
        try (Data(("%" + String(repeating: "x", count: 1500) + "\n").utf8) + deck).write(to: URL(fileURLWithPath: late))
        for path in [stripped, late] {
            XCTAssertNil(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(1024).range(of: Data("%PDF-".utf8)))
            let stored = try c.upload(path: path)
            XCTAssertEqual(stored.kind, .pdf, path)
            XCTAssertEqual(stored.pageCount, 3, path)
        }
        _ = try c.requestFloor()
        XCTAssertNoThrow(try c.present(try c.upload(path: stripped).content, page: 3))
    }
}
