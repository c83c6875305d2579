import CJPEG
import Foundation
import LecternCore

/// Frames to JPEG through libjpeg-turbo: the web remote's previews of photographic frames,
/// where a JPEG is a fraction of the PNG (a screenshot for `lectern screenshot` or a test
/// stays PNG: lossless).
public enum JPEG {
    public static let defaultQuality = 82

    /// The frame as a JPEG (4:2:0, baseline); nil if libjpeg refused it.
    public static func encode(_ frame: Frame, quality: Int = defaultQuality) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = lectern_jpeg_encode_bgrx(
            frame.baseAddress.assumingMemoryBound(to: UInt8.self), Int32(frame.width), Int32(frame.height), Int32(frame.stride),
            Int32(max(1, min(100, quality))), &out, &size)
        guard rc == 0, let out else { return nil }
        defer { free(out) }
        return [UInt8](UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// Whether `bytes` are a JPEG (its SOI marker and the next marker's first byte).
    public static func isJPEG(_ bytes: [UInt8]) -> Bool { bytes.count > 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF }
}
