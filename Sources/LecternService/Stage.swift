import Dispatch
import Foundation
import LecternCore

/// The one owner of the output: keeps the scene that should be on it and presents it.
/// Every change of scene goes through `show`, serialised on the stage's queue. A scene
/// that can't be rendered leaves the previous frame on the output and throws.
public final class Stage: @unchecked Sendable {
    public let output: Output
    public let compositor: Compositor
    private let queue = DispatchQueue(label: "lectern.stage")
    private var current: Scene = .idle
    private var onScreen = false

    public init(output: Output, compositor: Compositor) {
        self.output = output
        self.compositor = compositor
    }

    /// The scene on the output now.
    public var scene: Scene { queue.sync { current } }

    /// Renders (or takes from the cache) and presents `scene`; returns once it is on the
    /// output. Then prerenders the page's neighbours.
    public func show(_ scene: Scene) throws {
        try queue.sync {
            let frame = try compositor.frame(for: scene)
            try output.present(frame)
            current = scene
            onScreen = true
            if case .page(let content, let page) = scene {
                compositor.prerenderNeighbours(content: content, page: page)
            }
        }
    }

    /// Shows the current scene again (after the idle screen's text changed, or a display
    /// came back).
    public func refresh() throws {
        let s = scene
        if s == .idle { _ = queue.sync { compositor.setIdle(compositor.idleScreen) } }
        try show(s)
    }

    /// The frame on the output now, exactly.
    public func screenshot() -> Frame { output.readBack() }
}
