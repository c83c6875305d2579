import Foundation
import LecternClient
import LecternModel
import LecternPipeline
import LecternProtocol
import LecternRender
import LecternService
import LecternTestSupport
import LecternVideo
import XCTest

/// A clip in any pane (issue 26, docs/protocol.md §9.7), through the protocol against a real
/// `lecternd` (the built binary, TLS on as shipped, the virtual display at 1280×720): a split
/// with a page in pane 0 and a clip in pane 1, each pane's picture where the analytic fit puts
/// it with exact bars; a page turn in pane 0 leaves the clip in pane 1 playing.
final class PaneClipOverTCPTests: XCTestCase {
    typealias Setup = ApplianceServiceTests.Setup
    static let pass = "pane-clip-presenter"

    func join(_ port: Int, _ name: String, role: Role = .presenter) throws -> LecternConnection {
        // lecternd on its defaults: TLS, its self-signed certificate taken as it is.
        let c = try LecternConnection(host: "127.0.0.1", port: port, tls: ClientTLS { _ in true })
        try c.register(name: name, role: role, passcode: role == .moderator ? "appliance-moderator" : Self.pass)
        return c
    }

    static func near(_ c: RGB, _ e: RGB, _ tolerance: Int = 40) -> Bool {
        abs(Int(c.r) - Int(e.r)) <= tolerance && abs(Int(c.g) - Int(e.g)) <= tolerance && abs(Int(c.b) - Int(e.b)) <= tolerance
    }

    /// Every pixel of `rect` close to `color` (a decoded clip's colours are not exact).
    static func all(_ f: Frame, _ rect: PixelRect, near color: RGB) -> Bool {
        for y in rect.y..<rect.maxY { for x in rect.x..<rect.maxX where !near(f.pixel(x: x, y: y), color) { return false } }
        return true
    }

    static func crop(_ frame: Frame, _ rect: PixelRect) -> Frame {
        let out = Frame(width: rect.width, height: rect.height)
        for y in 0..<rect.height { for x in 0..<rect.width { out.setPixel(x: x, y: y, frame.pixel(x: rect.x + x, y: rect.y + y)) } }
        return out
    }

    /// Pane 1's picture where the fit puts it: the bars outside exactly the background, the
    /// red and blue halves inside (a few pixels from their meeting line left out: chroma).
    static func clipPaneExact(_ f: Frame, pane: PixelRect, picture: PixelRect) -> Bool {
        let half = picture.width / 2
        return f.isUniform(PixelRect(x: pane.x, y: pane.y, width: pane.width, height: picture.y - pane.y), .black)
            && f.isUniform(PixelRect(x: pane.x, y: picture.maxY, width: pane.width, height: pane.maxY - picture.maxY), .black)
            && all(f, PixelRect(x: picture.x, y: picture.y, width: half - 4, height: picture.height), near: RGB(255, 0, 0))
            && all(f, PixelRect(x: picture.x + half + 4, y: picture.y, width: half - 4, height: picture.height), near: RGB(0, 0, 255))
    }

    func testASplitWithAPageAndAClipEachPaneExactAndAPageTurnLeavesTheClipPlaying() throws {
        let s = Setup()
        try s.writeConfig(passcode: Self.pass, room: "Pane Room")
        let (p, port) = try s.start()
        defer { p.kill(SIGTERM); _ = p.waitForExit() }
        let deckPath = try Fixtures.numberedDeck(count: 3, in: s.dir)
        let doc = try PDFDocument(path: deckPath)

        // Ana holds the floor and shows page 1 in the main pane; the chair splits the wall and
        // hands pane 1 to Ben, who plays his clip there.
        let ana = try join(port, "Ana")
        _ = try ana.requestFloor()
        try ana.present(try ana.upload(path: deckPath).content, page: 1)
        let chair = try join(port, "Chair", role: .moderator)
        let ben = try join(port, "Ben")
        _ = try chair.request(.layoutSet(.split))
        _ = try chair.request(.paneSet(PaneRequest(pane: 1, .assign(try XCTUnwrap(ben.registration?.deviceID)))))
        let clip = try ben.upload(path: try Fixtures.halvesClip(in: s.dir))
        XCTAssertEqual(try ben.request(.clipPlay(content: clip.content, loop: true)), .clipPlayOK)

        // The analytic fit: the 1280×720 output split in two 640×720 panes; a 4:3 source in a
        // pane is 640×480 with 120 rows of bars above and below.
        let panes = WallLayout.split.paneRects(width: 1280, height: 720)
        XCTAssertEqual(panes, [PixelRect(x: 0, y: 0, width: 640, height: 720), PixelRect(x: 640, y: 0, width: 640, height: 720)])
        let picture = Fit.rect(aspect: 4.0 / 3.0, in: panes[1])
        XCTAssertEqual(picture, PixelRect(x: 640, y: 120, width: 640, height: 480))
        let page1 = try Compositor.renderPage(doc, page: 1, settings: .init(width: 640, height: 720))
        var shot = Frame(width: 1, height: 1)
        try eventually("the page in pane 0 and the clip in pane 1", timeout: 20, interval: 0.1) {
            shot = try PNG.decode(ana.screenshot())
            return Self.clipPaneExact(shot, pane: panes[1], picture: picture)
        }
        XCTAssertEqual(PixelCompare.differingPixels(Self.crop(shot, panes[0]), page1), 0, "pane 0: the page, fitted with exact bars")
        XCTAssertEqual(shot.width, 1280)
        // The state: Ben's screen is his pane, with the clip and the sound.
        let benState = try ben.waitForState { $0.screen.clip?.state == .playing }
        XCTAssertEqual(benState.screen.content?.id, clip.content)
        XCTAssertEqual(benState.layout?.panes[1].screen.clip?.state, .playing)
        XCTAssertEqual(benState.layout?.soundPane, 1)
        XCTAssertNil(try ana.state().screen.clip, "Ana's screen is the main pane: her page")

        // Ana turns her page while the clip plays: pane 0 shows page 2, pane 1 plays on.
        let before = try ben.waitForState { ($0.screen.clip?.presentedFrames ?? 0) > 10 }.screen.clip?.presentedFrames ?? 0
        XCTAssertEqual(try ana.request(.control(.next)), .controlOK)
        let page2 = try Compositor.renderPage(doc, page: 2, settings: .init(width: 640, height: 720))
        try eventually("page 2 in pane 0, the clip still in pane 1", timeout: 20, interval: 0.1) {
            shot = try PNG.decode(ana.screenshot())
            return PixelCompare.differingPixels(Self.crop(shot, panes[0]), page2) == 0 && Self.clipPaneExact(shot, pane: panes[1], picture: picture)
        }
        let after = try ben.waitForState(timeout: 15) { ($0.screen.clip?.presentedFrames ?? 0) > before + 30 }
        XCTAssertEqual(after.screen.clip?.state, .playing, "the page turn beside it didn't touch the clip")
        XCTAssertEqual(after.layout?.panes[0].screen.page, 2)

        // Ben stops: his pane shows what was under the clip (nothing: the idle card), Ana's page stays.
        XCTAssertEqual(try ben.request(.clipStop), .clipStopOK)
        _ = try ben.waitForState(timeout: 15) { $0.screen.clip == nil }
        try eventually("the clip gone from pane 1", timeout: 20, interval: 0.1) {
            shot = try PNG.decode(ana.screenshot())
            return !Self.all(shot, PixelRect(x: 700, y: 300, width: 40, height: 40), near: RGB(255, 0, 0))
        }
        XCTAssertEqual(PixelCompare.differingPixels(Self.crop(shot, panes[0]), page2), 0)
        XCTAssertNil(try ben.state().layout?.soundPane)
    }

    /// The loudest sample of the last `seconds` the sound device was given (ALSA's file
    /// plugin writes what it plays, as it plays it).
    static func tailPeak(_ raw: String, seconds: Double = 0.1) -> Int {
        let s = Fixtures.rawSamples(raw)
        return s.suffix(Int(seconds * 48_000) * 2).map { abs(Int($0)) }.max() ?? -1
    }

    /// §23.1 on a real ALSA device: with clips in two panes only the one whose play or resume
    /// came last reaches the device (the other plays muted, its picture going on), and the
    /// device is opened by one clip at a time. Ana's clip is a 1 kHz tone, Ben's silence.
    func testOnlyTheClipWithTheSoundReachesTheSoundDevice() throws {
        let dir = Fixtures.tempDir("pane-sound")
        let raw = dir + "/played.raw"
        let h = try ServiceHarness(floor: .open) { $0.audioDevice = AudioDevice("file:FILE=\(raw),FORMAT=raw") }
        let ana = try h.presenter("Ana")
        _ = try ana.requestFloor()
        let ben = try h.presenter("Ben")
        let chair = try h.moderator("Chair")
        _ = try chair.request(.layoutSet(.split))
        _ = try chair.request(.paneSet(PaneRequest(pane: 1, .assign(try XCTUnwrap(ben.registration?.deviceID)))))
        let tone = try ana.upload(path: try Fixtures.toneClip(in: dir, seconds: 4, name: "tone.mp4"))
        let quiet = try ben.upload(path: try Fixtures.toneClip(in: dir, seconds: 4, tone: "0", name: "quiet.mp4"))
        // The sine at 1/8 of full scale, mono to both channels at −3 dB: 2896.
        let tonePeak = 2896.0

        _ = try ana.request(.clipPlay(content: tone.content, loop: true))
        try eventually("Ana's tone on the device", timeout: 15) { abs(Double(Self.tailPeak(raw)) - tonePeak) < 200 }
        XCTAssertEqual(try ana.waitForState { $0.layout?.soundPane == 0 }.layout?.soundPane, 0)

        _ = try ben.request(.clipPlay(content: quiet.content, loop: true))
        XCTAssertEqual(try ben.waitForState { $0.layout?.soundPane == 1 }.layout?.soundPane, 1)
        try eventually("only Ben's (silent) clip on the device", timeout: 15) { Self.tailPeak(raw, seconds: 0.2) == 0 }
        // Every thread of the two clips (their producers, and FFmpeg's decoding threads where
        // a pane's share of the cores is more than one, started from the producer) yields to
        // the display loop and the page renders.
        let share = ClipThreads.inPane(of: 2).decoder
        let clipThreads = Fixtures.threads().filter { $0.name.hasPrefix("lectern.clip") }
        XCTAssertGreaterThanOrEqual(clipThreads.count, 2 * (share > 1 ? 1 + share : 1), "\(Fixtures.threads())")
        XCTAssertEqual(clipThreads.filter { $0.nice != Int(ClipSource.producerNice) }.map(\.name), [], "\(clipThreads)")
        // Ana's clip plays on, muted.
        let muted = try ana.waitForState { $0.screen.clip?.state == .playing }.screen.clip?.presentedFrames ?? 0
        XCTAssertGreaterThan(try ana.waitForState(timeout: 15) { ($0.screen.clip?.presentedFrames ?? 0) > muted + 20 }.screen.clip?.presentedFrames ?? 0, muted)
        XCTAssertEqual(Self.tailPeak(raw, seconds: 0.2), 0, "still only Ben's")

        // Ana's resume (of her playing clip) takes the sound back; Ben's stop leaves it with her.
        XCTAssertEqual(try ana.request(.clipResume), .clipResumeOK)
        XCTAssertEqual(try ana.waitForState { $0.layout?.soundPane == 0 }.layout?.soundPane, 0)
        try eventually("Ana's tone again", timeout: 15) { abs(Double(Self.tailPeak(raw)) - tonePeak) < 200 }
        _ = try ben.request(.clipStop)
        XCTAssertEqual(try ana.waitForState { $0.layout?.panes[1].screen.clip == nil }.layout?.soundPane, 0)
        _ = try ana.request(.clipStop)
        XCTAssertNil(try ana.waitForState { $0.screen.clip == nil }.layout?.soundPane)
    }
}
