/// An opaque colour. Frames are XRGB8888: one 32-bit word per pixel, 0x00RRGGBB.
public struct RGB: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var r: UInt8, g: UInt8, b: UInt8
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { self.r = r; self.g = g; self.b = b }
    public init(xrgb: UInt32) {
        r = UInt8((xrgb >> 16) & 0xFF); g = UInt8((xrgb >> 8) & 0xFF); b = UInt8(xrgb & 0xFF)
    }

    public static let black = RGB(0, 0, 0)
    public static let white = RGB(255, 255, 255)

    /// The pixel word (X byte zero).
    public var xrgb: UInt32 { UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b) }

    /// `#rrggbb`, `rrggbb`, `#rgb`, or `black`/`white`/`gray`/`navy`; nil otherwise.
    public init?(parsing text: String) {
        let named: [String: RGB] = [
            "black": .black, "white": .white, "gray": RGB(128, 128, 128),
            "grey": RGB(128, 128, 128), "navy": RGB(0, 0, 128),
        ]
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let c = named[t] { self = c; return }
        var hex = Substring(t)
        if hex.hasPrefix("#") { hex = hex.dropFirst() }
        if hex.count == 3 { hex = Substring(hex.map { "\($0)\($0)" }.joined()) }
        guard hex.count == 6, let v = UInt32(hex, radix: 16) else { return nil }
        self.init(xrgb: v)
    }

    public var description: String {
        "#" + [r, g, b].map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}

extension String {
    func leftPadded(to n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}

import Foundation
