import Foundation

/// The output mode an admin asks for (`display.mode`, `lecternd --mode`): a size, and a
/// refresh rate only when one was written. "1280x720" asks for that size at whatever rate
/// the display offers (60 Hz when it has it); "1280x720@50" for exactly 50 Hz.
public struct RequestedMode: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// Hz as written; nil when none was.
    public var refresh: Double?

    public init(width: Int, height: Int, refresh: Double? = nil) {
        self.width = width; self.height = height; self.refresh = refresh
    }

    /// Parses `WxH` or `WxH@R` (`×` for `x` too); nil for anything else, sizes outside
    /// 16…16384 or a rate outside 1…1000 Hz.
    public init?(parsing text: String) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "×", with: "x")
        let parts = t.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let wh = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard wh.count == 2, let w = Int(wh[0]), let h = Int(wh[1]),
            (16...16384).contains(w), (16...16384).contains(h)
        else { return nil }
        var r: Double?
        if parts.count == 2 {
            guard let rr = Double(parts[1]), rr >= 1, rr <= 1000 else { return nil }
            r = rr
        }
        self.init(width: w, height: h, refresh: r)
    }

    /// The mode an output with no modes of its own (the virtual display) takes: 60 Hz
    /// when no rate was asked for.
    public var displayMode: DisplayMode {
        DisplayMode(width: width, height: height, refresh: refresh ?? 60)
    }

    /// Whether a display's mode answers the request: the same size, and the rate asked
    /// for within 1 Hz (any rate when none was).
    public func matches(width w: Int, height h: Int, refresh r: Double) -> Bool {
        w == width && h == height && refresh.map { abs($0 - r) < 1 } ?? true
    }

    /// As written in the config: `1280x720`, `1280x720@50`.
    public var description: String {
        guard let refresh else { return "\(width)x\(height)" }
        return "\(width)x\(height)@" + (refresh == refresh.rounded() ? String(Int(refresh)) : String(refresh))
    }
}
