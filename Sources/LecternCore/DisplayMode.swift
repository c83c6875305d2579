/// An output mode: pixels and refresh rate, written `1920x1080@60` (or `1920×1080`).
public struct DisplayMode: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// Refresh in Hz (60 when not given).
    public var refresh: Double

    public static let fullHD = DisplayMode(width: 1920, height: 1080, refresh: 60)

    public init(width: Int, height: Int, refresh: Double = 60) {
        self.width = width; self.height = height; self.refresh = refresh
    }

    /// Parses `WxH` or `WxH@R`; nil for anything else or sizes outside 16…16384.
    public init?(parsing text: String) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "×", with: "x")
        let parts = t.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let wh = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard wh.count == 2, let w = Int(wh[0]), let h = Int(wh[1]),
            (16...16384).contains(w), (16...16384).contains(h)
        else { return nil }
        var r = 60.0
        if parts.count == 2 {
            guard let rr = Double(parts[1]), rr >= 1, rr <= 1000 else { return nil }
            r = rr
        }
        self.init(width: w, height: h, refresh: r)
    }

    /// Seconds between two refreshes.
    public var frameInterval: Double { 1 / refresh }

    public var description: String {
        let r = refresh == refresh.rounded() ? String(Int(refresh)) : String(format: "%.2f", refresh)
        return "\(width)x\(height)@\(r)"
    }
}

import Foundation
