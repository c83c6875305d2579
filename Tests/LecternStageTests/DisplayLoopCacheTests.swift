import Foundation
import LecternModel
import LecternDisplay
import LecternPipeline
import LecternTestSupport
import Synchronization
import XCTest

@testable import LecternStage

/// The display loop's frame path on a real virtual display (60 Hz): a page the cache has is
/// looked up by the loop itself and presented at the next refresh, with no hop through the
/// render threads; a miss goes to them.
final class DisplayLoopCacheTests: XCTestCase {
    let mode = DisplayMode(width: 320, height: 180, refresh: 60)

    /// What the loop asked of its hooks, and on which threads.
    final class Calls: Sendable {
        let state = Mutex<(renders: [Scene], lookups: [pthread_t], pings: [pthread_t], reports: [StageEffect])>(([], [], [], []))
        var renders: [Scene] { state.withLock { $0.renders } }
        var lookups: [pthread_t] { state.withLock { $0.lookups } }
        var pings: [pthread_t] { state.withLock { $0.pings } }
        var shown: Int { state.withLock { $0.reports.filter { if case .shown = $0 { return true } else { return false } }.count } }
    }

    static func color(_ p: Int) -> RGB { [RGB(200, 0, 0), RGB(0, 200, 0), RGB(0, 0, 200)][p - 1] }

    static func page(_ scene: Scene, _ r: RenderRequest) -> RenderedPane {
        guard case .page(_, let p) = scene else { return RenderedPane(frame: Frame(width: r.width, height: r.height), pageRect: nil) }
        return RenderedPane(frame: Frame(width: r.width, height: r.height, color: color(p)), pageRect: PixelRect(x: 40, y: 0, width: r.width - 80, height: r.height))
    }

    func testACachedPageIsTakenOnTheLoopAndAMissGoesToTheRenderThreads() throws {
        let display = VirtualDisplay(mode: mode)
        let calls = Calls()
        let cached = Mutex<Set<Int>>([2])   // page 2 is drawn already (a prerendered neighbour)
        var hooks = DisplayHooks { r in
            calls.state.withLock { $0.renders.append(r.scene) }
            return .success(Self.page(r.scene, r))
        }
        hooks.cached = { r in
            calls.state.withLock { $0.lookups.append(pthread_self()) }
            guard case .page(_, let p) = r.scene, cached.withLock({ $0.contains(p) }) else { return nil }
            return Self.page(r.scene, r)
        }
        hooks.report = { e in calls.state.withLock { $0.reports.append(e) } }
        hooks.ping = { calls.state.withLock { $0.pings.append(pthread_self()) } }
        let loop = DisplayLoop(output: display, core: StageCore(mode: mode), ink: InkOverlay(), hooks: hooks)
        defer { loop.stop() }

        loop.post(.show(op: 1, WallPlan(.page(content: "deck", page: 1))))
        try eventually("page 1 shown", timeout: 10) { calls.shown == 1 }
        XCTAssertEqual(calls.renders, [.page(content: "deck", page: 1)], "a miss is drawn on a render thread")
        XCTAssertEqual(display.readBack().pixel(x: 160, y: 90), Self.color(1))

        loop.post(.show(op: 2, WallPlan(.page(content: "deck", page: 2))))
        try eventually("page 2 shown", timeout: 10) { calls.shown == 2 }
        XCTAssertEqual(calls.renders.count, 1, "a cached page took a hop through the render threads")
        loop.ping()   // answered on the loop's thread
        try eventually("the loop's ping", timeout: 10) { !calls.pings.isEmpty }
        XCTAssertEqual(calls.lookups, [calls.pings[0], calls.pings[0]], "looked up by the display loop itself")
        let wall = display.readBack()
        XCTAssertEqual(wall.pixel(x: 160, y: 90), Self.color(2))
        XCTAssertEqual(loop.snapshot.boxes, [PixelRect(x: 40, y: 0, width: 240, height: 180)], "the box came with the cached page")

        loop.post(.show(op: 3, WallPlan(.page(content: "deck", page: 3))))
        try eventually("page 3 shown", timeout: 10) { calls.shown == 3 }
        XCTAssertEqual(calls.renders.last, .page(content: "deck", page: 3))
        XCTAssertEqual(display.readBack().pixel(x: 160, y: 90), Self.color(3))
    }
}
