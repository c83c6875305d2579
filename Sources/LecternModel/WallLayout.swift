/// How the wall is divided into panes (issue 26; docs/protocol.md §9).
///
/// The one definition of the layouts' names and of where each pane sits: the stage, the
/// room, the wire, the CLI and the web client all derive from it (the web client's copy is
/// drift-tested).
public enum WallLayout: String, CaseIterable, Equatable, Hashable, Sendable, Codable {
    /// One pane, the whole wall (today's wall).
    case full
    /// Two panes side by side, left (0) and right (1).
    case split
    /// Two panes one above the other, top (0) and bottom (1) (for portrait-ish sources).
    case stack
    /// Four panes, 2×2: top left (0), top right (1), bottom left (2), bottom right (3).
    case quad
    /// Picture in picture: the whole wall (0) and a small pane in the bottom right corner (1).
    case pip

    /// How many panes the layout has.
    public var paneCount: Int {
        switch self {
        case .full: return 1
        case .split, .stack, .pip: return 2
        case .quad: return 4
        }
    }

    /// Where each pane sits on a `width`×`height` output, in pane order, inside the safe
    /// area (`overscanPercent`). Panes are separated by `gap` pixels of background; each
    /// source is then fitted aspect-preserving inside its pane (`Fit.rect(aspect:in:)`),
    /// with bars, exactly as a single source is fitted to the whole wall.
    public func paneRects(width: Int, height: Int, overscanPercent: Double = 0, gap: Int = 0) -> [PixelRect] {
        let a = Fit.safeArea(width: width, height: height, overscanPercent: overscanPercent)
        let g = max(0, gap)
        switch self {
        case .full:
            return [a]
        case .split:
            let w0 = (a.width - g) / 2
            return [
                PixelRect(x: a.x, y: a.y, width: w0, height: a.height),
                PixelRect(x: a.x + w0 + g, y: a.y, width: a.width - w0 - g, height: a.height),
            ]
        case .stack:
            let h0 = (a.height - g) / 2
            return [
                PixelRect(x: a.x, y: a.y, width: a.width, height: h0),
                PixelRect(x: a.x, y: a.y + h0 + g, width: a.width, height: a.height - h0 - g),
            ]
        case .quad:
            let w0 = (a.width - g) / 2
            let h0 = (a.height - g) / 2
            let w1 = a.width - w0 - g
            let h1 = a.height - h0 - g
            return [
                PixelRect(x: a.x, y: a.y, width: w0, height: h0),
                PixelRect(x: a.x + w0 + g, y: a.y, width: w1, height: h0),
                PixelRect(x: a.x, y: a.y + h0 + g, width: w0, height: h1),
                PixelRect(x: a.x + w0 + g, y: a.y + h0 + g, width: w1, height: h1),
            ]
        case .pip:
            // A quarter of the wall's width and height, inset by 2.5 % of the width.
            let w = a.width / 4
            let h = a.height / 4
            let m = max(1, a.width / 40)
            return [a, PixelRect(x: a.maxX - w - m, y: a.maxY - h - m, width: w, height: h)]
        }
    }
}
