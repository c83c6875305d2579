/// A card the wall shows over the page (§24): a poll's results as a bar chart, the open-text
/// answers the presenter picked, or one audience question. Never names anyone.
public struct WallCard: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    public struct Bar: Equatable, Hashable, Sendable, Codable {
        public var label: String
        public var count: Int
        /// The correct answer, once revealed.
        public var highlighted: Bool
        public init(label: String, count: Int, highlighted: Bool = false) {
            self.label = label
            self.count = count
            self.highlighted = highlighted
        }
    }
    public var title: String
    /// A bar chart (choice and yes/no polls); empty otherwise.
    public var bars: [Bar]
    /// Lines of text (picked open-text answers, or a question); empty for a chart.
    public var lines: [String]
    public init(title: String, bars: [Bar] = [], lines: [String] = []) {
        self.title = title
        self.bars = bars
        self.lines = lines
    }
    public var description: String { bars.isEmpty ? "card '\(title.prefix(24))' (\(lines.count) lines)" : "chart '\(title.prefix(24))' \(bars.map(\.count))" }
}

extension WallCard {
    /// Where a card's white panel sits on a `width`×`height` picture: everything a card
    /// draws is inside it (`WallCardDrawing`), so copying it puts the card over anything.
    public static func panelRect(width: Int, height: Int, overscanPercent: Double) -> PixelRect {
        let mx = Int(Double(width) * (0.08 + overscanPercent / 100))
        let my = Int(Double(height) * (0.08 + overscanPercent / 100))
        return PixelRect(x: mx, y: my, width: width - 2 * mx, height: height - 2 * my)
    }
}
