import CPangoCairo
import LecternCore

/// Draws a `WallCard` over a frame: a white panel over the middle of the output with the
/// title on top, then either a horizontal bar per answer (length proportional to its count,
/// the longest bar the full track; the revealed correct one green) or lines of text.
public enum WallCardDrawing {
    public static let panel = RGB(255, 255, 255)
    public static let bar = RGB(40, 100, 200)
    public static let correctBar = RGB(30, 150, 60)
    public static let ink = RGB(20, 20, 20)

    /// Where the bars go, for a card with `n` bars on a `width`×`height` output: the track
    /// of each bar (a bar of the largest count fills its track).
    public static func tracks(n: Int, width: Int, height: Int, overscanPercent: Double = 0) -> [PixelRect] {
        let p = panelRect(width: width, height: height, overscanPercent: overscanPercent)
        guard n > 0 else { return [] }
        let top = p.y + p.height / 5
        let rowHeight = (p.maxY - p.height / 20 - top) / n
        let x = p.x + p.width * 3 / 10
        let w = p.width * 6 / 10
        return (0..<n).map { i in PixelRect(x: x, y: top + i * rowHeight + rowHeight / 5, width: w, height: rowHeight * 3 / 5) }
    }

    static func panelRect(width: Int, height: Int, overscanPercent: Double) -> PixelRect {
        let mx = Int(Double(width) * (0.08 + overscanPercent / 100))
        let my = Int(Double(height) * (0.08 + overscanPercent / 100))
        return PixelRect(x: mx, y: my, width: width - 2 * mx, height: height - 2 * my)
    }

    public static func draw(_ card: WallCard, into frame: Frame, overscanPercent: Double = 0) {
        let c = CairoFrame(frame)
        defer { c.finish() }
        draw(card, on: c, width: frame.width, height: frame.height, overscanPercent: overscanPercent)
    }

    /// Draws the card on any cairo context of `width`×`height` (a frame, or a page of the
    /// meeting record's PDF).
    static func draw(_ card: WallCard, on c: CairoFrame, width: Int, height: Int, overscanPercent: Double = 0) {
        let p = panelRect(width: width, height: height, overscanPercent: overscanPercent)
        c.fill(p, panel)
        let h = Double(height)
        c.setColor(ink)
        IdleScreen.text(c.cr, card.title, bold: true, size: h / 20, x: Double(p.x + p.width / 20), y: Double(p.y) + h * 0.04, width: Double(p.width * 9 / 10))
        if !card.bars.isEmpty {
            let most = max(1, card.bars.map(\.count).max() ?? 1)
            let total = card.bars.reduce(0) { $0 + $1.count }
            for (i, (b, t)) in zip(card.bars, tracks(n: card.bars.count, width: width, height: height, overscanPercent: overscanPercent)).enumerated() {
                let letter = String(UnicodeScalar(UInt8(65 + min(i, 25))))
                c.setColor(ink)
                IdleScreen.text(
                    c.cr, "\(letter)  \(b.label)", bold: b.highlighted, size: Double(t.height) * 0.55,
                    x: Double(p.x + p.width / 40), y: Double(t.y), width: Double(t.x - p.x - p.width / 20))
                let length = t.width * b.count / most
                if length > 0 { c.fill(PixelRect(x: t.x, y: t.y, width: length, height: t.height), b.highlighted ? correctBar : bar) }
                c.setColor(ink)
                let pct = total > 0 ? " (\(b.count * 100 / total) %)" : ""
                IdleScreen.text(
                    c.cr, "\(b.count)\(pct)", bold: false, size: Double(t.height) * 0.45,
                    x: Double(t.maxX + p.width / 100), y: Double(t.y) + Double(t.height) * 0.2, width: Double(p.maxX - t.maxX - p.width / 50))
            }
        } else {
            var y = Double(p.y) + h * 0.18
            for line in card.lines.prefix(12) {
                c.setColor(ink)
                y += IdleScreen.text(c.cr, line, bold: false, size: h / 26, x: Double(p.x + p.width / 20), y: y, width: Double(p.width * 9 / 10)) + h * 0.01
                if y > Double(p.maxY) { break }
            }
        }
    }
}
