import Dispatch
import Foundation
import LecternCore
import LecternPipeline
import LecternRender
import LecternVideo

/// The one owner of the output: keeps the scene that should be on it and presents it.
/// Every change of scene goes through `show`, serialised on the stage's queue. A scene
/// that can't be rendered leaves the previous frame on the output and throws.
public final class Stage: @unchecked Sendable {
    public let output: Output
    /// Replaced only on `queue`, under `compositorLock`, so readers off the queue (page
    /// previews while a clip holds the queue) never wait for the stage.
    private var _compositor: Compositor
    private let compositorLock = NSLock()
    private let queue = DispatchQueue(label: "lectern.stage")
    private var current: Scene = .idle

    public init(output: Output, compositor: Compositor) {
        self.output = output
        self._compositor = compositor
    }

    /// The frame pipeline for the output's current mode.
    public var compositor: Compositor { compositorLock.withLock { _compositor } }

    /// The scene on the output now.
    public var scene: Scene { queue.sync { current } }

    /// Renders (or takes from the cache) and presents `scene`; returns once it is on the
    /// output. Then prerenders the page's neighbours.
    public func show(_ scene: Scene) throws {
        try queue.sync { try showLocked(scene) }
    }

    private func showLocked(_ scene: Scene) throws {
        let mode = output.mode
        if mode.width != _compositor.settings.width || mode.height != _compositor.settings.height {
            let resized = _compositor.resized(width: mode.width, height: mode.height)
            compositorLock.withLock { _compositor = resized }
        }
        let frame = try _compositor.frame(for: scene)
        try output.present(frame)
        current = scene
        if case .page(let content, let page) = scene {
            _compositor.prerenderNeighbours(content: content, page: page)
        }
    }

    /// Shows the current scene again (after the idle screen's text changed, or a display
    /// came back).
    public func refresh() throws {
        try queue.sync { try showLocked(current) }
    }

    /// After a hotplug event: lets the output re-probe its display and, when a display
    /// appeared or its mode changed, shows the current scene again at the new mode.
    public func displayChanged() throws {
        try queue.sync {
            if try output.reprobe() { try showLocked(current) }
        }
    }

    /// Changes the idle screen's text, and shows it if the output is idle.
    public func setIdle(_ screen: IdleScreen) throws {
        try queue.sync {
            _compositor.setIdle(screen)
            if current == .idle { try showLocked(.idle) }
        }
    }

    // MARK: clips

    private let playLock = NSLock()
    private var playing: PlaybackControl?
    private var presentsAtLastBeat = -1

    /// Plays a clip on the output, paced to its refresh, holding the stage until it ends,
    /// is stopped or fails; then shows again the scene that was on screen before (the slide).
    public func play(_ decoder: ClipDecoder, loop: Bool, control: PlaybackControl) -> PlaybackResult {
        queue.sync {
            playLock.lock(); playing = control; playLock.unlock()
            let mode = output.mode
            let s = _compositor.settings
            let rect = Fit.rect(for: decoder.info.shape, width: mode.width, height: mode.height, overscanPercent: s.overscanPercent)
            let result = ClipPlayback.play(decoder, on: output, rect: rect, background: s.background, loop: loop, control: control)
            decoder.close()
            playLock.lock(); playing = nil; playLock.unlock()
            try? showLocked(current)
            return result
        }
    }

    /// The watchdog's question: is the output alive? While a clip plays, its own presents
    /// answer (or it is paused); otherwise the current scene is presented again.
    public func heartbeat() throws {
        playLock.lock()
        let control = playing
        playLock.unlock()
        if let control {
            let n = output.presentCount
            defer { presentsAtLastBeat = n }
            if control.status.state == .paused || n != presentsAtLastBeat { return }
            throw StageError(description: "a clip is playing but nothing was presented since the last heartbeat")
        }
        try refresh()
    }

    /// The frame on the output now, exactly.
    public func screenshot() -> Frame { output.readBack() }
}

struct StageError: Error, CustomStringConvertible { let description: String }
