import LecternModel

/// The mark of a paused live share (docs/protocol.md §29.4): its last picture stays, with
/// a pause sign in the pane's top right corner — a dark square with two white bars, drawn
/// with plain fills (no font), so a glance from the back of the room tells it is not live.
enum PauseBadge {
    static let plate = RGB(0x20, 0x20, 0x20)
    static let bars = RGB.white

    /// The badge's square in a pane at `rect`: a tenth of the pane's shorter side (at least
    /// 24 pixels), inset by half of that from the corner.
    static func square(in rect: PixelRect) -> PixelRect {
        let side = max(24, min(rect.width, rect.height) / 10)
        let inset = side / 2
        return PixelRect(x: rect.maxX - inset - side, y: rect.y + inset, width: side, height: side)
    }

    static func draw(into back: Frame, pane rect: PixelRect) {
        let s = square(in: rect)
        guard s.x >= rect.x, s.maxY <= rect.maxY else { return }
        back.fill(s, plate)
        let barWidth = max(3, s.width / 5)
        let barHeight = s.height * 3 / 5
        let top = s.y + (s.height - barHeight) / 2
        let gap = barWidth
        let left = s.x + (s.width - 2 * barWidth - gap) / 2
        back.fill(PixelRect(x: left, y: top, width: barWidth, height: barHeight), bars)
        back.fill(PixelRect(x: left + barWidth + gap, y: top, width: barWidth, height: barHeight), bars)
    }
}
