import Foundation
import LecternClient
import LecternModel
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// Issue 29, must 5: the upload path people see, in a real headless Chromium against a real
/// service (TLS on, as shipped). The picker offers everything the appliance shows, a file too
/// big is refused before a byte of it is read, an unsupported file gets the server's reason
/// with what to do, and photos chosen together become one deck.
final class UploadPickerTests: XCTestCase {
    /// Both pickers' `accept` is the server's table (UploadFormats): extensions first (a
    /// phone's picker greys out files a list of MIME types alone can't type), then MIME
    /// types; they take several files; the page's copy of the table has the server's rows.
    func testThePickersAcceptEverythingTheApplianceShows() throws {
        let h = try ServiceHarness.web(floor: .open)
        let b = try h.browser(width: 390, height: 844)
        try h.joinAndWait(b, name: "Ana")
        for id in ["file-input", "file-present"] {
            let accept = try b.execute("return document.getElementById(arguments[0]).accept", [id]) as? String
            XCTAssertEqual(accept, UploadFormats.accept, id)
            XCTAssertEqual(try b.execute("return document.getElementById(arguments[0]).multiple", [id]) as? Bool, true, id)
        }
        for ext in [".pdf", ".pptx", ".key", ".docx", ".xlsx", ".odp", ".jpg", ".heic", ".png", ".webp", ".gif", ".mp4", ".pdfpc"] {
            XCTAssertTrue(UploadFormats.accept.split(separator: ",").contains(Substring(ext)), ext)
        }
        let rows = try b.execute("return window.Lectern.formats.map((r) => [r[0], r[1], r[2].join(' '), r[3].join(' ')])") as? [[String]]
        XCTAssertEqual(rows, UploadFormats.rows.map { [$0.kind, $0.what, $0.extensions.joined(separator: " "), $0.mimeTypes.joined(separator: " ")] })
    }

    /// With `max_upload_mb = 1`, a 3 MB file is refused at once in the admin's units, and
    /// the page never read it (no Blob was read, no upload-begin reached the service).
    func testAFileTooBigIsRefusedBeforeItIsReadInTheAdminsUnits() throws {
        let h = try ServiceHarness.web(floor: .open) { $0.maxUploadMB = 1 }
        let b = try h.browser(width: 390, height: 844)
        try h.joinAndWait(b, name: "Ana")
        try b.poll("the state's upload limit") {
            try b.execute("return window.Lectern.app.state && window.Lectern.app.state.uploads && window.Lectern.app.state.uploads.maxFileText") as? String
                == "1 MB"
        }
        // Every read of a file's bytes is counted from here on.
        try b.execute(
            """
            window.__reads = 0;
            for (const m of ['arrayBuffer', 'text', 'stream']) {
              const f = Blob.prototype[m];
              Blob.prototype[m] = function () { window.__reads++; return f.apply(this, arguments); };
            }
            """)
        let big = h.dir + "/big.pdf"
        try Data("%PDF-1.4\n".utf8 + [UInt8](repeating: 0x20, count: 3_000_000)).write(to: URL(fileURLWithPath: big))
        try b.type(try XCTUnwrap(b.find("#file-input")), big)
        try b.poll("the refusal") { try b.text("#upload-text") == "big.pdf: The file is larger than the 1 MB limit." }
        XCTAssertEqual(try b.execute("return window.__reads") as? Int, 0, "the file was read")
        try shoot(b, "upload-too-big", width: 390, height: 844)
        XCTAssertEqual(try h.snapshot().conversions ?? [], [])
        XCTAssertEqual(h.service.store.items().count, 0, "nothing reached the store")
    }

    /// A file the appliance can't show is refused with the server's own sentence: what it
    /// shows, and "Export your slides as PDF and try again."
    func testAnUnsupportedFileGetsTheServersReasonWithWhatToDo() throws {
        let h = try ServiceHarness.web(floor: .open)
        let b = try h.browser(width: 390, height: 844)
        try h.joinAndWait(b, name: "Ana")
        let file = h.dir + "/agenda.txt"
        try Data("1. Welcome\n2. Numbers\n3. Questions\n".utf8).write(to: URL(fileURLWithPath: file))
        try b.type(try XCTUnwrap(b.find("#file-input")), file)
        try b.poll("the reason") { try b.text("#upload-text") == "agenda.txt: " + UploadFormats.refusal }
        XCTAssertTrue(UploadFormats.refusal.hasSuffix("Export your slides as PDF and try again."))
        XCTAssertTrue(try b.execute("return document.getElementById('toast').textContent") as? String == UploadFormats.refusal)
        try assertNoHorizontalScroll(b, "the page with the reason")
    }

    /// Three photos chosen at once (a HEIC, a JPEG, a PNG) become one deck in the order
    /// chosen, listed once with its three pages; Present shows them in that order.
    func testPhotosChosenTogetherBecomeOneDeckInTheOrderChosen() throws {
        let h = try ServiceHarness.web(floor: .open)
        let colours = [RGB(200, 30, 30), RGB(30, 190, 40), RGB(30, 50, 210)]
        let files = try ["IMG_0003.heic", "IMG_0001.jpg", "IMG_0002.png"].enumerated().map { i, name in
            try Fixtures.image(Frame(width: 800, height: 600, color: colours[i]), in: h.dir, name: name)
        }
        let b = try h.browser(width: 390, height: 844)
        try h.joinAndWait(b, name: "Ana")
        try b.type(try XCTUnwrap(b.find("#file-input")), files.joined(separator: "\n"))
        try b.poll("one deck in the list", timeout: 60) {
            try b.execute("return Array.from(document.querySelectorAll('#file-list .file-name')).map((e) => e.textContent)") as? [String]
                == ["IMG_0003.heic and 2 more"]
        }
        XCTAssertEqual(try b.text("#file-list .muted"), "3 pages")
        try shoot(b, "photos-one-deck", width: 390, height: 844)
        try b.click("#file-list button[data-action=present]")
        for page in 1...3 {
            if page > 1 { try b.click("#next") }
            try eventually("photo \(page) on the wall", timeout: 20, interval: 0.05) {
                let got = h.service.stage.screenshot().pixel(x: 960, y: 540), want = colours[page - 1]
                return abs(Int(got.r) - Int(want.r)) + abs(Int(got.g) - Int(want.g)) + abs(Int(got.b) - Int(want.b)) <= 30
            }
        }
    }
}
