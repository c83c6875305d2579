import Foundation

/// An output's mode: pixels and refresh rate, written `1920x1080@60`.
public struct DisplayMode: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// Refresh in Hz.
    public var refresh: Double

    public static let fullHD = DisplayMode(width: 1920, height: 1080, refresh: 60)

    public init(width: Int, height: Int, refresh: Double = 60) {
        self.width = width; self.height = height; self.refresh = refresh
    }

    /// `WxH` or `WxH@R` as a mode with a rate (60 Hz when none is written): for outputs with
    /// no modes of their own. What an admin asks for is a `RequestedMode`, whose rate may
    /// be absent.
    public init?(parsing text: String) {
        guard let wanted = RequestedMode(parsing: text) else { return nil }
        self = wanted.displayMode
    }

    /// Seconds between two refreshes.
    public var frameInterval: Double { 1 / refresh }

    public var description: String {
        let r = refresh == refresh.rounded() ? String(Int(refresh)) : String(format: "%.2f", refresh)
        return "\(width)x\(height)@\(r)"
    }
}
