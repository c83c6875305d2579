import CPangoCairo
import LecternModel

/// Draws a `WallCard` over a frame: a white panel over the middle of the output with the
/// title on top, then either a horizontal bar per answer (length proportional to its count,
/// the longest bar the full track; the revealed correct one green) or lines of text. Every
/// text is wrapped and sized to fit its box (`WallCardText`), at 16:9 and 4:3 alike.
public enum WallCardDrawing {
    public static let panel = RGB(255, 255, 255)
    public static let bar = RGB(40, 100, 200)
    public static let correctBar = RGB(30, 150, 60)
    public static let ink = RGB(20, 20, 20)

    /// Where the bars go, for a card with `n` bars on a `width`×`height` output: the track
    /// of each bar (a bar of the largest count fills its track). Labels take the panel's
    /// left 3/10, the counts the right fifth (room for "12 (100 %)" at any output size).
    public static func tracks(n: Int, width: Int, height: Int, overscanPercent: Double = 0) -> [PixelRect] {
        let p = panelRect(width: width, height: height, overscanPercent: overscanPercent)
        guard n > 0 else { return [] }
        let top = p.y + p.height / 5
        let rowHeight = (p.maxY - p.height / 20 - top) / n
        let x = p.x + p.width * 3 / 10
        let w = p.width * 47 / 100
        return (0..<n).map { i in PixelRect(x: x, y: top + i * rowHeight + rowHeight / 5, width: w, height: rowHeight * 3 / 5) }
    }

    static func panelRect(width: Int, height: Int, overscanPercent: Double) -> PixelRect {
        WallCard.panelRect(width: width, height: height, overscanPercent: overscanPercent)
    }

    /// Draws the card over `frame`; returns every text drawn, where and at what size.
    @discardableResult
    public static func draw(_ card: WallCard, into frame: Frame, overscanPercent: Double = 0) -> [WallCardText.Placed] {
        let c = CairoFrame(frame)
        defer { c.finish() }
        return draw(card, on: c, width: frame.width, height: frame.height, overscanPercent: overscanPercent)
    }

    /// Draws the card on any cairo context of `width`×`height` (a frame, or a page of the
    /// meeting record's PDF). Every text fits its box (`WallCardText`): the title in up to
    /// the panel's top sixth, a label in its row, a count beside its bar, a question (or
    /// the picked answers) in the rest of the panel, as large as fits.
    @discardableResult
    static func draw(_ card: WallCard, on c: CairoFrame, width: Int, height: Int, overscanPercent: Double = 0) -> [WallCardText.Placed] {
        let p = panelRect(width: width, height: height, overscanPercent: overscanPercent)
        c.fill(p, panel)
        let h = Double(height)
        let least = max(8, h / 64)
        var placed: [WallCardText.Placed] = []
        c.setColor(ink)
        let margin = p.width / 20
        let titleBox = PixelRect(x: p.x + margin, y: p.y + Int(h * 0.03), width: p.width - 2 * margin, height: p.height / 5 - Int(h * 0.04))
        let title = WallCardText.draw(c.cr, card.title, bold: true, box: titleBox, maxSize: h / 20, minSize: least, align: PANGO_ALIGN_CENTER)
        placed.append(title)
        if !card.bars.isEmpty {
            let most = max(1, card.bars.map(\.count).max() ?? 1)
            let total = card.bars.reduce(0) { $0 + $1.count }
            let ts = tracks(n: card.bars.count, width: width, height: height, overscanPercent: overscanPercent)
            let rowHeight = ts.count > 1 ? ts[1].y - ts[0].y : p.maxY - p.height / 20 - (p.y + p.height / 5)
            for (i, (b, t)) in zip(card.bars, ts).enumerated() {
                let letter = String(UnicodeScalar(UInt8(65 + min(i, 25))))
                c.setColor(ink)
                let labelBox = PixelRect(x: p.x + p.width / 40, y: t.y - rowHeight / 6, width: t.x - p.x - p.width / 20, height: rowHeight * 14 / 15)
                placed.append(
                    WallCardText.draw(
                        c.cr, "\(letter)  \(b.label)", bold: b.highlighted, box: labelBox,
                        maxSize: min(Double(t.height) * 0.55, h / 22), minSize: least))
                let length = t.width * b.count / most
                if length > 0 { c.fill(PixelRect(x: t.x, y: t.y, width: length, height: t.height), b.highlighted ? correctBar : bar) }
                c.setColor(ink)
                let pct = total > 0 ? " (\(b.count * 100 / total) %)" : ""
                let countBox = PixelRect(x: t.maxX + p.width / 60, y: t.y, width: p.maxX - p.width / 40 - t.maxX - p.width / 60, height: t.height)
                placed.append(
                    WallCardText.draw(
                        c.cr, "\(b.count)\(pct)", bold: false, box: countBox,
                        maxSize: min(Double(t.height) * 0.5, h / 22), minSize: least, wrap: false))
            }
        } else if !card.lines.isEmpty {
            // The rest of the panel below the title, shared by the lines; one line (a
            // question) may be as large as a slide's heading.
            let top = max(title.drawn.maxY, titleBox.y + Int(h * 0.05)) + Int(h * 0.03)
            let area = PixelRect(x: p.x + margin, y: top, width: p.width - 2 * margin, height: p.maxY - p.height / 20 - top)
            let lines = Array(card.lines.prefix(12))
            let gap = Int(h * 0.015)
            let each = (area.height - gap * (lines.count - 1)) / lines.count
            let largest = lines.count == 1 ? h / 13 : min(h / 22, Double(each) * 0.8)
            var y = area.y
            for line in lines {
                c.setColor(ink)
                let box = PixelRect(x: area.x, y: y, width: area.width, height: lines.count == 1 ? area.height : each)
                let t = WallCardText.draw(c.cr, line, bold: false, box: box, maxSize: largest, minSize: least)
                placed.append(t)
                y += (lines.count == 1 ? t.drawn.height : each) + gap
            }
        }
        return placed
    }
}
