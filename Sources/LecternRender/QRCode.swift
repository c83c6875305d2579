import CQREncode
import LecternCore

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
