/// How the wall moves to a page: a PDF page's own `/Trans` (as poppler reports it), or the
/// short cross-fade a presenter or admin chose for decks without any (docs/protocol.md §21).
public struct PageTransition: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// PDF 32000-1 §12.4.4.1, Table 162 (`/S`).
    public enum Style: String, CaseIterable, Equatable, Hashable, Sendable, Codable {
        case replace, split, blinds, box, wipe, dissolve, glitter, fly, push, cover, uncover, fade
    }
    /// `/Dm`: Split and Blinds.
    public enum Dimension: String, Equatable, Hashable, Sendable, Codable { case horizontal, vertical }
    /// `/M`: Split, Box and Fly.
    public enum Motion: String, Equatable, Hashable, Sendable, Codable { case inward, outward }

    public var style: Style
    /// Seconds (`/D`), within `0...maxDuration`.
    public var duration: Double
    public var dimension: Dimension
    public var motion: Motion
    /// `/Di` in degrees, counter-clockwise from left to right: 0, 90, 180, 270 (315 for Glitter).
    public var angle: Int

    /// The longest transition the wall plays: a hostile `/D 100000` must not hold the wall.
    public static let maxDuration = 5.0
    /// The fallback cross-fade's length (and the config's default).
    public static let defaultFadeDuration = 0.3

    public init(style: Style, duration: Double = 1, dimension: Dimension = .horizontal, motion: Motion = .inward, angle: Int = 0) {
        self.style = style
        // To the millisecond (poppler hands /D 0.3 over as 0.30000000000000004).
        self.duration = duration.isFinite ? (min(max(duration, 0), Self.maxDuration) * 1000).rounded() / 1000 : 1
        self.dimension = dimension
        self.motion = motion
        // Only the four (five) directions the PDF names; anything else is read as 0.
        let a = ((angle % 360) + 360) % 360
        self.angle = [0, 90, 180, 270, 315].contains(a) ? a : 0
    }

    public static func fade(_ seconds: Double = defaultFadeDuration) -> PageTransition { PageTransition(style: .fade, duration: seconds) }

    /// A transition the wall animates (Replace, or no time at all, is a cut).
    public var animates: Bool { style != .replace && duration > 0 }

    public var description: String {
        var s = "\(style.rawValue) \(duration) s"
        switch style {
        case .split: s += " \(dimension.rawValue) \(motion.rawValue)"
        case .blinds: s += " \(dimension.rawValue)"
        case .box: s += " \(motion.rawValue)"
        case .wipe, .glitter, .push, .cover, .uncover, .fly: s += " \(angle)°"
        default: break
        }
        return s
    }
}
