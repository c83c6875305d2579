import Foundation
import LecternModel
import LecternRender
import LecternTestSupport
import XCTest

/// Issue 29, must 5, the CLI: `lectern upload` and `present` take the files the web remote
/// takes, several photos given together become one deck in the order given, and the
/// conversion's progress is printed. The real binaries: lecternd on the virtual display at
/// 1280×720 (CLITests.Daemon, TLS on as shipped) and the lectern CLI.
final class PhotoCLITests: XCTestCase {
    func testUploadPrintsTheConversionAndPresentShowsSeveralPhotosAsOneDeck() throws {
        let d = try CLITests.Daemon()
        let colours = [RGB(200, 30, 30), RGB(30, 190, 40), RGB(30, 50, 210)]
        let photos = try ["b.heic", "c.jpg", "a.png"].enumerated().map { i, name in
            try Fixtures.image(Frame(width: 640, height: 480, color: colours[i]), in: d.dir, name: name)
        }
        let pdf = try Fixtures.numberedDeck(count: 2, in: d.dir)

        // One photo: its deck's id, and the conversion said on stderr (not a terminal: a line each).
        let one = try d.lectern(["upload", photos[1]])
        XCTAssertEqual(one.status, 0, one.err)
        XCTAssertEqual(one.out.split(separator: "\n").count, 1)
        XCTAssertTrue(one.err.contains("Converting c.jpg (jpeg) · stored, waiting"), one.err)
        XCTAssertTrue(one.err.contains("Converting c.jpg · image 1 of 1"), one.err)

        // A PDF and three photos: the PDF's id, then the photos' one deck.
        let many = try d.lectern(["upload", pdf] + photos)
        XCTAssertEqual(many.status, 0, many.err)
        let ids = many.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(ids.count, 2, many.out)
        XCTAssertTrue(many.err.contains("Converting b.heic and 2 more"), many.err)

        // present with the three photos: one deck, shown from its first page.
        XCTAssertEqual(try d.lectern(["floor", "request"]).status, 0)
        let shown = try d.lectern(["present"] + photos)
        XCTAssertEqual(shown.status, 0, shown.err)
        let status = try d.lectern(["status", "--json"])
        XCTAssertTrue(status.out.contains("\"name\":\"b.heic and 2 more\""), status.out)
        XCTAssertTrue(status.out.contains("\"pageCount\":3"), status.out)
        for page in 1...3 {
            if page > 1 { XCTAssertEqual(try d.lectern(["next"]).status, 0) }
            let shot = d.dir + "/shot.png"
            XCTAssertEqual(try d.lectern(["screenshot", shot]).status, 0)
            let got = try PNG.read(path: shot).pixel(x: 640, y: 360), want = colours[page - 1]
            XCTAssertLessThanOrEqual(
                abs(Int(got.r) - Int(want.r)) + abs(Int(got.g) - Int(want.g)) + abs(Int(got.b) - Int(want.b)), 30, "page \(page): \(got)")
        }

        // Several files that are not all photos can't be presented together.
        let mixed = try d.lectern(["present", pdf, photos[0]])
        XCTAssertNotEqual(mixed.status, 0)
        XCTAssertTrue(mixed.err.contains("only when they are all photos or images"), mixed.err)
    }

    /// A file over the room's upload limit is refused before it is read, with the server's
    /// sentence in the admin's units and the uploads area's exit code. The file is a sparse
    /// 200 GB: hashing it first (as before) would take minutes, so the CLI runs under a
    /// 30 s `timeout`, which only a CLI that reads the file reaches (exit 124).
    func testAFileTooBigIsRefusedBeforeItIsRead() throws {
        let d = try CLITests.Daemon(extra: "max_upload_mb = 1")
        let big = d.dir + "/big.mp4"
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: nil))
        let h = try XCTUnwrap(FileHandle(forWritingAtPath: big))
        try h.truncate(atOffset: 200_000_000_000)
        try h.close()
        let r = try Fixtures.run(
            "timeout",
            [
                "30", "env", "LECTERN_PASSCODE=cli-presenter", "LECTERN_SESSION_FILE=\(d.dir)/session-big", "LECTERN_KNOWN_ROOMS=\(d.dir)/known-rooms",
                try Fixtures.binary("lectern"), "upload", big, "--port", "\(d.port)", "--name", "big",
            ])
        XCTAssertEqual(r.status, 14, r.err)   // 0x04xx: uploads (124: still reading at the time-out)
        XCTAssertTrue(r.err.contains("The file is larger than the 1 MB limit."), r.err)
    }
}
