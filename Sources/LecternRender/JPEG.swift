import CJPEG
import Foundation
import LecternModel

/// Frames to JPEG through libjpeg-turbo: the web remote's previews of photographic frames,
/// where a JPEG is a fraction of the PNG (a screenshot for `lectern screenshot` or a test
/// stays PNG: lossless).
public enum JPEG {
    public static let defaultQuality = 82

    /// What a viewer's slide is encoded with when JPEG is the smaller (§24.2): high quality and
    /// no chroma subsampling, so coloured text and thin lines are not blurred.
    public static let slideQuality = 92

    /// The frame as a JPEG (baseline; 4:2:0, or 4:4:4 with `fullChroma`); nil if libjpeg refused it.
    public static func encode(_ frame: Frame, quality: Int = defaultQuality, fullChroma: Bool = false) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = lectern_jpeg_encode_bgrx_sampled(
            frame.baseAddress.assumingMemoryBound(to: UInt8.self), Int32(frame.width), Int32(frame.height), Int32(frame.stride),
            Int32(max(1, min(100, quality))), fullChroma ? 1 : 0, &out, &size)
        guard rc == 0, let out else { return nil }
        defer { free(out) }
        return [UInt8](UnsafeBufferPointer(start: out, count: Int(size)))
    }

    struct DecodeError: Error, CustomStringConvertible { let description: String }

    /// A JPEG back to a frame (tests compare a viewer's slide with the wall's); at most `maxPixels`.
    public static func decode(_ bytes: [UInt8], maxPixels: Int = 16_000_000) throws -> Frame {
        var pixels: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0
        let rc = bytes.withUnsafeBufferPointer { lectern_jpeg_decode_bgrx($0.baseAddress, UInt($0.count), maxPixels, &pixels, &w, &h) }
        guard rc == 0, let pixels else { throw DecodeError(description: "not a JPEG") }
        defer { free(pixels) }
        let frame = Frame(width: Int(w), height: Int(h))
        for y in 0..<Int(h) {
            let from = UnsafeRawPointer(pixels + y * Int(w) * 4).assumingMemoryBound(to: UInt32.self)
            let to = (frame.baseAddress + y * frame.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<Int(w) { to[x] = from[x] & 0x00FF_FFFF }
        }
        return frame
    }
}
