import Foundation
import LecternConvert
import LecternModel
import LecternTestSupport
import Synchronization
import XCTest

/// The office converter against real LibreOffice in its real bubblewrap sandbox (issue 29,
/// must 2). Each hostile document is first shown to do what it names when LibreOffice
/// trusts it (outside any sandbox: `LibreOfficeReference`), so each test can fail; then
/// converted here, where it must not.
final class OfficeSandboxTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = Fixtures.tempDir("office") }

    func converter(warm: Bool = false, limits: ConversionLimits = ConversionLimits()) -> OfficeConverter {
        let c = OfficeConverter(root: dir + "/sandboxes", limits: limits, warm: warm)
        XCTAssertNil(c.unavailable, "LibreOffice, python3-uno and bubblewrap are installed by board/install-deps")
        return c
    }

    /// Converts `input` (of `format`) with `c`; the PDF goes to `dir/out.pdf`.
    func convert(
        _ input: String, _ format: SourceFormat, with c: OfficeConverter, stop: ConversionStop = ConversionStop(),
        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) throws(ConversionFailure) -> ConvertedDeck {
        let work = dir + "/work-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let job = ConversionJob(input: input, output: dir + "/out.pdf", workDirectory: work, name: (input as NSString).lastPathComponent, format: format, limits: c.limits)
        return try c.convert(job, progress: progress, stop: stop)
    }

    func text(_ pdf: String) throws -> String { String(decoding: try Fixtures.run("pdftotext", [pdf, "-"]).out, as: UTF8.self) }

    func testAPptxConvertsWithItsSpeakerNotesAndProgress() throws {
        let deck = dir + "/deck.pptx"
        try OfficeDocuments.pptx(deck, slides: 3)
        let sniff = try FileSniff(path: deck, name: "anything.bin")
        XCTAssertEqual(OfficeFormats.detect(sniff), OfficeFormats.pptx, "by its content, whatever its name")
        let seen = Mutex<[Int]>([])
        let made = try convert(deck, OfficeFormats.pptx, with: converter()) { done, total in
            XCTAssertEqual(total, 3)
            seen.withLock { $0.append(done) }
        }
        XCTAssertEqual(made.pages, 3)
        XCTAssertEqual(made.notes, [1: "Speaker notes for slide 1", 2: "Speaker notes for slide 2", 3: "Speaker notes for slide 3"])
        XCTAssertEqual(seen.withLock { $0.last }, 3)
        let t = try text(dir + "/out.pdf")
        for i in 1...3 { XCTAssertTrue(t.contains("Slide \(i) title"), t) }
    }

    /// Every office format of §30.1, made by LibreOffice from OpenDocument files made here:
    /// recognised by its content (under a name that says nothing), converted in the sandbox.
    func testEveryOfficeFormatIsRecognisedAndConverted() throws {
        let odp = dir + "/talk.odp", odt = dir + "/text.odt", ods = dir + "/sheet.ods", docx = dir + "/report.docx"
        try OfficeDocuments.odp(odp, slides: 2)
        try OfficeDocuments.docx(docx, paragraphs: 5)
        try OfficeDocuments.ods(ods, rows: 5)
        _ = try convert(docx, OfficeFormats.docx, with: converter())
        let odtMade = try OfficeDocuments.saved(docx, as: "odt", outDir: dir)
        try FileManager.default.moveItem(atPath: odtMade, toPath: odt)
        let files: [(String, SourceFormat)] = [
            (odp, OfficeFormats.odp), (odt, OfficeFormats.odt), (ods, OfficeFormats.ods), (docx, OfficeFormats.docx),
            (try OfficeDocuments.saved(odp, as: "pptx", outDir: dir), OfficeFormats.pptx),
            (try OfficeDocuments.saved(odp, as: "ppt", outDir: dir), OfficeFormats.ppt),
            (try OfficeDocuments.saved(odt, as: "doc", outDir: dir), OfficeFormats.doc),
            (try OfficeDocuments.saved(odt, as: "rtf", outDir: dir), OfficeFormats.rtf),
            (try OfficeDocuments.saved(ods, as: "xlsx", outDir: dir), OfficeFormats.xlsx),
            (try OfficeDocuments.saved(ods, as: "xls", outDir: dir), OfficeFormats.xls),
        ]
        let c = converter()
        for (file, format) in files {
            XCTAssertEqual(OfficeFormats.detect(try FileSniff(path: file, name: "upload.bin")), format, file)
            let made = try convert(file, format, with: c)
            let pages = try text(dir + "/out.pdf")
            XCTAssertTrue(pages.contains("Slide 1 title") || pages.contains("Quarterly report") || pages.contains("Row 3"), "\(file): \(pages)")
            if format.isPresentation { XCTAssertEqual(made.pages, 2, file) }
        }
        // A zip that is none of them, and a PDF: not office files.
        XCTAssertNil(OfficeFormats.detect(try FileSniff(path: try Fixtures.numberedDeck(count: 1, in: dir), name: "x.pptx")))
        try Fixtures.run("python3", ["-c", "import zipfile, sys; z = zipfile.ZipFile(sys.argv[1], 'w'); z.writestr('a.txt', 'hello'); z.close()", dir + "/plain.zip"])
        XCTAssertNil(OfficeFormats.detect(try FileSniff(path: dir + "/plain.zip", name: "plain.docx")))
    }

    /// A Keynote deck (§30.1 lists `.key`): recognised by its content under any name, and
    /// converted in the sandbox by LibreOffice's Keynote import, a page per slide with its
    /// text. (Keynote 6 and later save protobuf parts, `Index/Document.iwa`: recognised too,
    /// by the same rule; no such file can be made here.)
    func testAKeynoteDeckIsRecognisedAndConverted() throws {
        let deck = dir + "/talk.key"
        try OfficeDocuments.keynote(deck, slides: 3)
        XCTAssertEqual(OfficeFormats.detect(try FileSniff(path: deck, name: "upload.bin")), OfficeFormats.key)
        let made = try convert(deck, OfficeFormats.key, with: converter())
        XCTAssertEqual(made.pages, 3)
        let t = try text(dir + "/out.pdf")
        for i in 1...3 { XCTAssertTrue(t.contains("Keynote slide \(i) title"), t) }
    }

    /// `file://` links of a document (linked sections: OLE-style links to files) to a secret
    /// of the test's and to /etc/passwd: LibreOffice trusting it pulls the secret in; here
    /// the sandbox holds neither file, and links are never updated.
    func testLinkedFilesAreNotPulledIn() throws {
        let secret = dir + "/secret.txt"
        let marker = "TOPSECRET-\(UUID().uuidString)"
        try marker.write(toFile: secret, atomically: true, encoding: .utf8)
        let doc = dir + "/links.odt"
        try OfficeDocuments.linkedSections(doc, files: ["file://" + secret, "file:///etc/passwd"])
        try LibreOfficeReference.trusting(doc, output: dir + "/trusting.pdf", updateLinks: true)
        let trusting = try text(dir + "/trusting.pdf")
        XCTAssertTrue(trusting.contains(marker), "the document does pull the file in when its links are updated: \(trusting)")
        XCTAssertTrue(trusting.contains("root:"), "and /etc/passwd")

        _ = try convert(doc, OfficeFormats.odt, with: converter())
        let here = try text(dir + "/out.pdf")
        XCTAssertFalse(here.contains(marker), here)
        XCTAssertFalse(here.contains("root:"), here)
        XCTAssertTrue(here.contains("Linked sections below"), here)
    }

    /// A picture linked to a local file (a DOCX external relationship, an ODT link):
    /// LibreOffice trusting it draws the file; here nothing of it is drawn.
    func testExternalPicturesOfLocalFilesAreNotDrawn() throws {
        let secret = dir + "/secret.png"
        try Fixtures.run("python3", ["-c", "import sys; from PIL import Image; Image.new('RGB', (64, 64), (255, 0, 255)).save(sys.argv[1])", secret])
        for (name, format) in [("ext.docx", OfficeFormats.docx), ("ext.odt", OfficeFormats.odt)] {
            let doc = dir + "/" + name
            if format == OfficeFormats.docx {
                try OfficeDocuments.externalImageDocx(doc, url: "file://" + secret)
            } else {
                try OfficeDocuments.externalImageOdt(doc, url: "file://" + secret)
            }
            try LibreOfficeReference.trusting(doc, output: dir + "/trusting.pdf")
            XCTAssertGreaterThan(try magentaPixels(dir + "/trusting.pdf"), 100, "\(name): LibreOffice trusting it draws the linked file")
            _ = try convert(doc, format, with: converter())
            XCTAssertEqual(try magentaPixels(dir + "/out.pdf"), 0, "\(name): nothing of the file is drawn here")
        }
    }

    func magentaPixels(_ pdf: String) throws -> Int {
        let frame = try Fixtures.pdftoppm(pdf, page: 1, width: 340, height: 440)
        var n = 0
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let c = frame.pixel(x: x, y: y)
                if c.r > 200 && c.g < 60 && c.b > 200 { n += 1 }
            }
        }
        return n
    }

    /// A picture at `http://127.0.0.1:PORT/` (a DOCX external relationship, an ODT link):
    /// LibreOffice trusting it fetches it from the test's listener; here it can't reach it
    /// (the sandbox's network namespace has a loopback of its own and nothing else).
    func testAnAddressNamedInADocumentIsNeverContacted() throws {
        let listener = try RequestCounter()
        defer { listener.stop() }
        for (name, format) in [("ssrf.docx", OfficeFormats.docx), ("ssrf.odt", OfficeFormats.odt)] {
            let doc = dir + "/" + name
            let url = "http://127.0.0.1:\(listener.port)/\(name).png"
            if format == OfficeFormats.docx {
                try OfficeDocuments.externalImageDocx(doc, url: url)
            } else {
                try OfficeDocuments.externalImageOdt(doc, url: url)
            }
            let before = listener.count
            try LibreOfficeReference.trusting(doc, output: dir + "/trusting.pdf")
            XCTAssertGreaterThan(listener.count, before, "\(name): LibreOffice trusting it contacts the address")
            let reference = listener.count
            _ = try convert(doc, format, with: converter())
            XCTAssertEqual(listener.count, reference, "\(name): converted here without contacting the listener")
        }
    }

    /// A document with a macro (embedded Python, bound to every event a conversion could
    /// fire) that writes a file: run, it writes it; converted here, it runs no macro.
    func testAMacroDocumentRunsNoMacro() throws {
        let marker = dir + "/macro-ran"
        let doc = dir + "/macro.odt"
        try OfficeDocuments.macroOdt(doc, marker: marker)
        try LibreOfficeReference.trusting(doc, output: dir + "/trusting.pdf", invokeMacro: true)
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker), "the document's macro writes the file when it runs")
        try FileManager.default.removeItem(atPath: marker)

        _ = try convert(doc, OfficeFormats.odt, with: converter())
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker))
        let here = try text(dir + "/out.pdf")
        XCTAssertTrue(here.contains("Original text") && !here.contains("MACRO RAN"), here)
    }

    func testAZipBombIsRefusedWithItsLimit() throws {
        let bomb = dir + "/bomb.pptx"
        try OfficeDocuments.zipBombPptx(bomb, unpackedMB: 80)
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: bomb)[.size] as? Int)
        XCTAssertLessThan(size, 2_000_000, "a small file …")
        XCTAssertThrowsError(try convert(bomb, OfficeFormats.pptx, with: converter(limits: ConversionLimits(maxUnpackedBytes: 50_000_000)))) {
            XCTAssertEqual($0 as? ConversionFailure, .tooLarge(50_000_000), "… that unpacks to more than the limit")
        }
    }

    func testTenThousandSlidesAreRefusedWithTheLimitBeforeLibreOfficeLoadsThem() throws {
        let deck = dir + "/many.odp"
        try OfficeDocuments.manySlidesOdp(deck, slides: 10_000)
        let t0 = Date()
        XCTAssertThrowsError(try convert(deck, OfficeFormats.odp, with: converter())) {
            XCTAssertEqual($0 as? ConversionFailure, .tooManyPages(500))
        }
        print("10,000 slides refused in \(String(format: "%.1f", Date().timeIntervalSince(t0))) s")
    }

    /// A spreadsheet LibreOffice lays out for minutes: stopped (as the room stops it at its
    /// budget), the whole sandbox goes — no process of it is left.
    func testAStoppedConversionLeavesNoProcess() throws {
        let sheet = dir + "/endless.ods"
        try OfficeDocuments.endlessOds(sheet)
        let c = converter()
        let stop = ConversionStop()
        let converting = Mutex(false)
        DispatchQueue.global().async {
            try? eventually("the conversion to report progress", timeout: 60) { converting.withLock { $0 } }
            stop.stop()
        }
        XCTAssertThrowsError(try convert(sheet, OfficeFormats.ods, with: c, stop: stop) { _, _ in converting.withLock { $0 = true } }) {
            XCTAssertEqual($0 as? ConversionFailure, .stopped)
        }
        try eventually("no process of the sandbox left", timeout: 10) { Self.processes(naming: self.dir + "/sandboxes").isEmpty }
    }

    /// Processes whose command line names `path`.
    static func processes(naming path: String) -> [Int32] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
        return pids.filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: data, as: UTF8.self).contains(path)
        }
    }

    /// The warm converter: LibreOffice started ahead; the next document converts without
    /// waiting for it, and another starts for the one after.
    func testAWarmConverterConvertsAtOnceAndIsReplaced() throws {
        let deck = dir + "/deck.pptx"
        try OfficeDocuments.pptx(deck, slides: 2)
        let c = converter(warm: true)
        c.prepare()
        try eventually("a warm sandbox", timeout: 30) { !Self.processes(naming: self.dir + "/sandboxes/sandbox-1/").isEmpty }
        let made = try convert(deck, OfficeFormats.pptx, with: c)
        XCTAssertEqual(made.pages, 2)
        try eventually("the next warm sandbox", timeout: 30) { !Self.processes(naming: self.dir + "/sandboxes/sandbox-2/").isEmpty }
        try eventually("the first one gone", timeout: 10) { Self.processes(naming: self.dir + "/sandboxes/sandbox-1/").isEmpty }
        c.shutdown()
        try eventually("every sandbox gone after shutdown", timeout: 10) { Self.processes(naming: self.dir + "/sandboxes").isEmpty }
    }
}

/// An HTTP listener on 127.0.0.1 that counts the requests it gets (answering 404).
final class RequestCounter: Sendable {
    let port: Int
    private let fd: Int32
    private let hits = Mutex(0)
    private let running = Mutex(true)

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        a.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        guard bound == 0, listen(fd, 16) == 0 else { throw Fixtures.ToolError(description: "listener: \(String(cString: strerror(errno)))") }
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        port = Int(UInt16(bigEndian: a.sin_port))
        Thread.detachNewThread { [self] in
            while running.withLock({ $0 }) {
                let c = accept(fd, nil, nil)
                if c < 0 { continue }
                hits.withLock { $0 += 1 }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = read(c, &buffer, buffer.count)
                let answer = Array("HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8)
                _ = write(c, answer, answer.count)
                close(c)
            }
        }
    }

    var count: Int { hits.withLock { $0 } }

    func stop() {
        running.withLock { $0 = false }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}
