import LecternModel

/// Sizes of a photo's page (pure): the pixels kept of it and the page they fill.
public enum PhotoFit {
    /// The box the decoded picture must fit (aspect kept, never enlarged): landscape
    /// `long` × `short`, portrait `short` × `long`, by the upright picture's shape.
    public static func box(width: Int, height: Int, long: Int, short: Int) -> (width: Int, height: Int) {
        width >= height ? (long, short) : (short, long)
    }

    /// The upright size of a picture stored `width` × `height` with EXIF `orientation`
    /// (5–8 turn it a quarter).
    public static func upright(width: Int, height: Int, orientation: Int) -> (width: Int, height: Int) {
        (5...8).contains(orientation) ? (height, width) : (width, height)
    }

    /// The page, points: the picture's aspect exactly, its longer side 960 pt (a slide's
    /// 13.33 in), so photos and slides print alike in the meeting record.
    public static let longerSidePoints = 960.0

    public static func page(width: Int, height: Int) -> (width: Double, height: Double) {
        let w = Double(max(1, width)), h = Double(max(1, height))
        let scale = longerSidePoints / max(w, h)
        return (w * scale, h * scale)
    }
}

extension PhotoFit {
    /// About how many bytes making a page of an upright `width` × `height` picture takes beyond the
    /// child's start (measured with libvips 8.14 on 48-megapixel pictures): the kept picture
    /// `box` at 8 bytes a pixel (its decoded copy and the page's surface), what the decoder
    /// holds of the source (HEIF decodes it whole, about 4 bytes a pixel; GIF its frame,
    /// 5; JPEG, PNG and WebP stream their lines), and 16 MB to spare. An image over the
    /// budget by this is refused before it is decoded; a decoder failing on one near it is
    /// taken to have run out of memory.
    public static func decodeBytes(width: Int, height: Int, format: ImageFormat, box: (width: Int, height: Int)) -> Int {
        let scale = min(1, Double(box.width) / Double(max(1, width)), Double(box.height) / Double(max(1, height)))
        let kept = Double(width) * Double(height) * scale * scale
        let source = Double(width) * Double(height)
        let held: Double
        switch format {
        case .heif: held = source * 4
        case .gif: held = source * 5
        case .jpeg, .png, .webp: held = 0
        }
        return Int(kept * 8 + held) + (16 << 20)
    }
}
