import CQREncode
import LecternModel

/// A QR code (libqrencode) as a square matrix of dark modules.
public struct QRCode: Equatable, Sendable {
    public let size: Int
    public let modules: [Bool]

    /// Encodes `text` (8-bit mode, error correction M); nil if it doesn't fit.
    public init?(_ text: String) {
        guard let q = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(q) }
        let n = Int(q.pointee.width)
        size = n
        modules = (0..<(n * n)).map { q.pointee.data[$0] & 1 == 1 }
    }

    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }
}

extension QRCode {
    /// Modules of light margin the QR specification asks for around the code.
    public static let quietZone = 4

    /// Modules across, quiet zone included.
    public var sideWithQuietZone: Int { size + 2 * Self.quietZone }

    /// The largest whole-pixel module size at which the code and its quiet zone fit in a
    /// `width`×`height` area (0 when even 1-pixel modules don't fit).
    public func moduleSize(fitting width: Int, _ height: Int) -> Int {
        max(0, min(width, height) / sideWithQuietZone)
    }

    /// Draws the code into `frame`: whole-pixel square modules of the largest size that
    /// fits `rect` with a quiet zone of 4 modules, centred in `rect`; the quiet zone and
    /// the light modules in `light`, the dark ones in `dark`. Pixels of `rect` outside the
    /// code's square are left as they are. Returns the square drawn (quiet zone included),
    /// or nil, drawing nothing, when `rect` is too small for 1-pixel modules.
    @discardableResult
    public func draw(into frame: Frame, at rect: PixelRect, dark: RGB, light: RGB) -> PixelRect? {
        let m = moduleSize(fitting: rect.width, rect.height)
        guard m > 0 else { return nil }
        let side = sideWithQuietZone * m
        let square = PixelRect(
            x: rect.x + (rect.width - side) / 2, y: rect.y + (rect.height - side) / 2,
            width: side, height: side)
        frame.fill(square, light)
        let origin = (x: square.x + Self.quietZone * m, y: square.y + Self.quietZone * m)
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else { x += 1; continue }
                var end = x + 1
                while end < size, isDark(x: end, y: y) { end += 1 }
                // One run of dark modules in a row: one fill.
                frame.fill(PixelRect(x: origin.x + x * m, y: origin.y + y * m, width: (end - x) * m, height: m), dark)
                x = end
            }
        }
        return square
    }
}
