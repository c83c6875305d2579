import Dispatch
import Foundation
import LecternCore
import LecternRender

/// The one owner of the output: keeps the scene that should be on it and presents it.
/// Every change of scene goes through `show`, serialised on the stage's queue. A scene
/// that can't be rendered leaves the previous frame on the output and throws.
public final class Stage: @unchecked Sendable {
    public let output: Output
    private var _compositor: Compositor
    private let queue = DispatchQueue(label: "lectern.stage")
    private var current: Scene = .idle

    public init(output: Output, compositor: Compositor) {
        self.output = output
        self._compositor = compositor
    }

    /// The frame pipeline for the output's current mode.
    public var compositor: Compositor { queue.sync { _compositor } }

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
            _compositor = _compositor.resized(width: mode.width, height: mode.height)
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

    /// Changes the idle screen's text, and shows it if the output is idle.
    public func setIdle(_ screen: IdleScreen) throws {
        try queue.sync {
            _compositor.setIdle(screen)
            if current == .idle { try showLocked(.idle) }
        }
    }

    /// The frame on the output now, exactly.
    public func screenshot() -> Frame { output.readBack() }
}
