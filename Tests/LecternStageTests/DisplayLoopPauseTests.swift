import Foundation
import LecternCore
import LecternDisplay
import LecternPipeline
import LecternTestSupport
import Synchronization
import XCTest

@testable import LecternStage

/// A live share paused (docs/protocol.md §29.4) shows the pause sign over its last picture
/// at once, on a real virtual display: a paused share sends no more pictures, so the sign
/// can't wait for the next one (it did, now and then: a back buffer that held the same
/// picture unpaused was not drawn again, the pane's record named only the picture).
final class DisplayLoopPauseTests: XCTestCase {
    let mode = DisplayMode(width: 320, height: 180, refresh: 60)

    /// Gives one green frame, then nothing (a share whose sender paused).
    final class OnePicture: PaneVideoSource {
        let frame: Frame
        let given = Mutex(false)
        init(width: Int, height: Int) { frame = Frame(width: width, height: height, color: RGB(0, 160, 0)) }
        func frame(forRefreshAt refresh: Double, refreshPeriod: Double) -> Frame? {
            given.withLock { g in
                defer { g = true }
                return g ? nil : frame
            }
        }
        func presented(at time: Double) {}
        func resize(width: Int, height: Int) {}
    }

    func testPausingAShareWithNoNewPictureShowsTheSign() throws {
        let display = VirtualDisplay(mode: mode)
        let loop = DisplayLoop(output: display, core: StageCore(mode: mode), ink: InkOverlay(), hooks: DisplayHooks { _ in .failure(.superseded) })
        defer { loop.stop() }
        let source = OnePicture(width: mode.width, height: mode.height)
        loop.attach(serial: 1, source)
        loop.post(.show(op: nil, WallPlan(layout: .full, panes: [.share(serial: 1, paused: false)])))
        let sign = PauseBadge.square(in: PixelRect(x: 0, y: 0, width: mode.width, height: mode.height))
        let corner = (x: sign.x + 2, y: sign.y + 2)
        try eventually("the picture on the wall", timeout: 10) { display.readBack().pixel(x: corner.x, y: corner.y) == RGB(0, 160, 0) }
        // Shown once more (the room's state moved): both back buffers now hold that picture.
        let presents = display.presentCount
        loop.post(.show(op: 1, WallPlan(layout: .full, panes: [.share(serial: 1, paused: false)])))
        try eventually("presented again", timeout: 10) { display.presentCount > presents }
        loop.post(.show(op: 2, WallPlan(layout: .full, panes: [.share(serial: 1, paused: true)])))
        try eventually("the pause sign over it", timeout: 10) { display.readBack().pixel(x: corner.x, y: corner.y) == PauseBadge.plate }
        XCTAssertEqual(display.readBack().pixel(x: 10, y: 170), RGB(0, 160, 0), "the last picture stays under it")
        loop.post(.show(op: nil, WallPlan(layout: .full, panes: [.share(serial: 1, paused: false)])))
        try eventually("the sign gone when it goes on", timeout: 10) { display.readBack().pixel(x: corner.x, y: corner.y) == RGB(0, 160, 0) }
    }
}
