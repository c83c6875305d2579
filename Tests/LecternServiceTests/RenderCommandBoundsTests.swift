import Foundation
import Glibc
import LecternModel
import LecternSystem
import LecternPipeline
import LecternRender
import LecternTestSupport
import XCTest

/// `lectern render` (the built binary) shows what the service would show: the same split
/// decision for wide pages (§20.3), the same fitting, and the same bounds (a render worker
/// with the service's memory and time limits).
final class RenderCommandBoundsTests: XCTestCase {
    let lectern = { try Fixtures.binary("lectern") }

    func render(_ args: [String]) throws -> (frame: Frame?, err: String, status: Int32, seconds: Double) {
        let out = Fixtures.tempDir("render-out") + "/page.png"
        let start = MonotonicClock.now()
        let r = try Fixtures.run(try lectern(), ["render"] + args + ["-o", out])
        let seconds = MonotonicClock.now() - start
        return (r.status == 0 ? try PNG.read(path: out) : nil, r.err, r.status, seconds)
    }

    func testABannerIsDrawnWholeAndABeamerDeckAsItsSlideHalf() throws {
        let dir = Fixtures.tempDir("render-wide")
        let settings = Compositor.Settings(width: 1280, height: 720)
        for (width, height) in [(1200.0, 300.0), (1920.0, 300.0)] {
            let banner = try WidePagesTests.wideDeck(width: width, height: height, in: dir, name: "banner-\(Int(width)).pdf")
            let r = try render([banner, "--mode", "1280x720"])
            XCTAssertEqual(r.status, 0, r.err)
            let whole = try Compositor.renderPage(PDFDocument(path: banner), page: 1, settings: settings)
            XCTAssertEqual(PixelCompare.differingPixels(try XCTUnwrap(r.frame), whole), 0, "\(width)×\(height): the whole page, as the wall shows it")
        }
        let beamer = try Fixtures.beamerNotesDeck(labels: ["1", "2"], in: dir)
        let doc = try PDFDocument(path: beamer)
        let split = try render([beamer, "--page", "2", "--mode", "1280x720"])
        XCTAssertEqual(split.status, 0, split.err)
        XCTAssertEqual(
            PixelCompare.differingPixels(try XCTUnwrap(split.frame), try Compositor.renderPage(doc, page: 2, settings: settings, part: .left)), 0, "the slide half, as the wall")
        let whole = try render([beamer, "--page", "2", "--mode", "1280x720", "--notes-layout", "whole"])
        XCTAssertEqual(whole.status, 0, whole.err)
        XCTAssertEqual(PixelCompare.differingPixels(try XCTUnwrap(whole.frame), try Compositor.renderPage(doc, page: 2, settings: settings)), 0, "whole when asked")
        let bad = try render([beamer, "--notes-layout", "sideways"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.err.contains("--notes-layout"), bad.err)
    }

    /// A 2 KB page that needs 1.6 GB: refused with the service's message within the
    /// limits, exit 1, no PNG; in-process it took 1.7 GB and more than 30 s.
    func testAMemoryBombIsRefusedWithinTheServiceLimits() throws {
        let dir = Fixtures.tempDir("render-bomb")
        var pdf = RawPDF()
        let image = pdf.addStream("/Type /XObject /Subtype /Image /Width 20000 /Height 20000 /ColorSpace /DeviceRGB /BitsPerComponent 8", "0123456789abcdef")
        let content = pdf.addStream("", "q 600 0 0 450 0 0 cm /Im Do Q")
        _ = pdf.addPage("/MediaBox [0 0 600 450] /Contents \(content) 0 R /Resources << /XObject << /Im \(image) 0 R >> >>")
        let path = dir + "/membomb.pdf"
        try pdf.write(to: path)
        let r = try render([path])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.contains("needs more than the \(Config().renderMemoryMB) MB"), r.err)
        XCTAssertLessThan(r.seconds, Config().renderBudget + 3, "within the time limit (and the worker's start)")
    }

    /// A 500-byte PDF whose cross-reference table claims 33 million objects: poppler
    /// allocates an entry for each when it opens it (1.3 GB; refused, it aborts). `lectern
    /// render` reads the file for its pages and layout in a child with the service's
    /// opening budget (`DeckProbe`, §12.1): refused with its message, exit 1, at once.
    func testOpeningTheFileIsBoundedToo() throws {
        let dir = Fixtures.tempDir("render-xref")
        var pdf = RawPDF()
        let content = pdf.addStream("", "0.2 0.6 0.3 rg 100 100 300 200 re f")
        _ = pdf.addPage("/MediaBox [0 0 600 450] /Contents \(content) 0 R")
        let claimed = 33_000_000
        let text = String(decoding: try pdf.data(), as: UTF8.self)
            .replacingOccurrences(of: "trailer\n<< /Size ", with: "\(claimed - 1) 1\n0000000000 65535 f\r\ntrailer\n<< /Size \(claimed) /Old ")
        let path = dir + "/xref.pdf"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let start = MonotonicClock.now()
        let (status, peakKB) = try Self.peak(try lectern(), ["render", path, "--mode", "640x360", "-o", dir + "/x.png"])
        XCTAssertEqual(status, 1)
        XCTAssertLessThan(peakKB, (Config().renderMemoryMB + 400) << 10, "the command and its children stayed within the limit")
        XCTAssertLessThan(MonotonicClock.now() - start, Config().renderBudget + 3)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x.png"))
        let r = try render([path, "--mode", "640x360"])
        XCTAssertTrue(r.err.contains(DeckProbe.openingReason(DeckProbe.Limits())), r.err)
    }

    /// Runs `tool` and returns its exit status and peak resident memory (KiB, wait4's).
    /// The exit status and the peak resident size (KB) of `tool` and the children it waited
    /// for. posix_spawn shares this process's memory until the exec, so the kernel's figure
    /// is at least this process's own size then (its peak, reset first): a figure no higher
    /// than that says only that the command stayed below this process (0 is returned), one
    /// above it is the command's. Run alone the figure is the command's; late in a long suite
    /// the test process is large and only a command larger than it shows (the 1.3 GB of an
    /// unbounded opening does).
    static func peak(_ tool: String, _ args: [String]) throws -> (Int32, Int) {
        PeakResident.reset()
        let mine = PeakResident.current >> 10
        var pid: pid_t = 0
        var argv: [UnsafeMutablePointer<CChar>?] = ([tool] + args).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        guard posix_spawn(&pid, tool, &actions, nil, &argv, environ) == 0 else { throw CocoaError(.fileNoSuchFile) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xFF, usage.ru_maxrss > mine + (16 << 10) ? usage.ru_maxrss : 0)
    }

    /// A page of 10⁶ paths: refused past the budget (`--budget`), exit 1, promptly.
    func testATimeBombIsRefusedPastTheBudget() throws {
        let dir = Fixtures.tempDir("render-slow")
        var pdf = RawPDF()
        var form = pdf.addForm(bbox: [0, 0, 600, 450], "0 0 1 rg 0 0 m 10 10 l 20 0 l f")
        for _ in 0..<6 {
            let draws = (0..<10).map { j in "q 0.9 0 0 0.9 \(j % 7) \(j % 5) cm /X Do Q" }.joined(separator: "\n")
            form = pdf.addForm(bbox: [0, 0, 600, 450], resources: "/XObject << /X \(form) 0 R >>", draws)
        }
        let content = pdf.addStream("", "/X Do")
        _ = pdf.addPage("/MediaBox [0 0 600 450] /Contents \(content) 0 R /Resources << /XObject << /X \(form) 0 R >> >>")
        let path = dir + "/slow.pdf"
        try pdf.write(to: path)
        let r = try render([path, "--budget", "1"])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.contains("takes longer than 1 s"), r.err)
        XCTAssertLessThan(r.seconds, 4, "stopped at the budget")
    }
}
