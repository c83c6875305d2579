import Foundation
import LecternModel

/// A viewer's slide (docs/protocol.md §24.2) as the smaller of a PNG and a JPEG: a photo is a
/// fraction as JPEG; a flat slide (text, diagrams) is smaller, and exact, as PNG. The JPEG is
/// never a blurred one: quality `JPEG.slideQuality` and no chroma subsampling (4:4:4).
public enum SlideEncoding {
    public static func encode(_ frame: Frame) -> (bytes: [UInt8], contentType: String) {
        let png = [UInt8](PNG.encode(frame))
        if let jpeg = JPEG.encode(frame, quality: JPEG.slideQuality, fullChroma: true), jpeg.count < png.count {
            return (jpeg, "image/jpeg")
        }
        return (png, "image/png")
    }
}
