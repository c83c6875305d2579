import Foundation
import LecternDisplay
import LecternModel
import LecternPipeline
import LecternTestSupport
import Synchronization
import XCTest

@testable import LecternStage

/// A clip fitted into its pane has bars that never change (its producer draws them once per
/// buffer): a pane drawn again from the same source into a back buffer that shows it already
/// copies only the picture (two 1080p clips side by side: half of each pane is bars). On a
/// real virtual display, with a source whose bars change colour at each frame so the test
/// can see which were copied.
final class DisplayLoopPictureTests: XCTestCase {
    let mode = DisplayMode(width: 320, height: 180, refresh: 60)

    /// Gives `count` frames, one a refresh: frame k has bars of red k and a picture of green
    /// 10·k in `picture`.
    final class Banded: PaneVideoSource {
        let picture: PixelRect
        let frames: [Frame]
        let next = Mutex(0)
        init(width: Int, height: Int, picture: PixelRect, count: Int) {
            self.picture = picture
            frames = (1...count).map { k in
                let f = Frame(width: width, height: height, color: RGB(UInt8(k), 0, 0))
                f.fill(picture, RGB(0, UInt8(10 * k), 0))
                return f
            }
        }
        func frame(forRefreshAt refresh: Double, refreshPeriod: Double) -> Frame? {
            next.withLock { n in
                guard n < frames.count else { return nil }
                defer { n += 1 }
                return frames[n]
            }
        }
        func presented(at time: Double) {}
        func resize(width: Int, height: Int) {}
        func pictureRect(width: Int, height: Int) -> PixelRect? { picture }
        var given: Int { next.withLock { $0 } }
    }

    func testOnlyThePictureIsCopiedIntoABufferThatShowsTheSourceAlready() throws {
        let display = VirtualDisplay(mode: mode)
        let loop = DisplayLoop(output: display, core: StageCore(mode: mode), ink: InkOverlay(), hooks: DisplayHooks { _ in .failure(.superseded) })
        defer { loop.stop() }
        let picture = PixelRect(x: 0, y: 45, width: 320, height: 90)
        let source = Banded(width: mode.width, height: mode.height, picture: picture, count: 12)
        loop.attach(serial: 1, source)
        loop.post(.show(op: nil, WallPlan(layout: .full, panes: [.clip(serial: 1)])))
        try eventually("every frame given", timeout: 10) { source.given == 12 }
        try eventually("the last one on the wall", timeout: 10) { display.readBack().pixel(x: 160, y: 90) == RGB(0, 120, 0) }
        let wall = display.readBack()
        // The bars are those of a frame drawn whole into this buffer (its first), not the last's.
        let bar = wall.pixel(x: 160, y: 10)
        XCTAssertEqual(bar.g, 0)
        XCTAssertLessThan(bar.r, 12, "the bars were copied again with each frame")
        XCTAssertEqual(wall.pixel(x: 160, y: 170), bar)
    }
}
