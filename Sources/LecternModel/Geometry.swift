/// Where a source goes on the output: aspect-preserving, centred, whole pixels.
///
/// Every picture Lectern shows (a PDF page, a video frame, later anything else) is placed
/// with `Fit.rect`, so a 4:3 slide on a 1920×1080 projector is always x=240, w=1440.

/// A rectangle in output pixels.
public struct PixelRect: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < maxX && py >= y && py < maxY }
    public var description: String { "\(width)×\(height)+\(x)+\(y)" }
}

/// The shape of a source picture before it is placed.
public struct SourceShape: Equatable, Sendable {
    /// Width and height as stored (PDF points of the unrotated page, or coded video pixels).
    public var width: Double
    public var height: Double
    /// Clockwise rotation the source asks for: PDF `/Rotate`, video display-matrix rotation.
    /// Any multiple of 90, negative or above 360 allowed.
    public var rotation: Int
    /// Width of one sample over its height (video SAR; 1 for PDF pages).
    public var sampleAspect: Double

    public init(width: Double, height: Double, rotation: Int = 0, sampleAspect: Double = 1) {
        self.width = width; self.height = height
        self.rotation = rotation; self.sampleAspect = sampleAspect
    }

    /// Rotation normalised to 0, 90, 180 or 270.
    public var normalizedRotation: Int { ((rotation % 360) + 360) % 360 / 90 * 90 }

    /// Display width over display height, after sample aspect and rotation.
    public var displayAspect: Double {
        let w = width * (sampleAspect > 0 ? sampleAspect : 1)
        let a = w / height
        return normalizedRotation % 180 == 0 ? a : 1 / a
    }
}

public enum Fit {
    /// The area of `mode` that is safe to draw in when the projector crops `overscanPercent`
    /// of each dimension at each edge (0 = the whole output; 5 = keep 5 % clear on every side).
    public static func safeArea(width: Int, height: Int, overscanPercent: Double = 0) -> PixelRect {
        let p = max(0, min(overscanPercent, 25)) / 100
        let mx = Int((Double(width) * p).rounded())
        let my = Int((Double(height) * p).rounded())
        return PixelRect(x: mx, y: my, width: width - 2 * mx, height: height - 2 * my)
    }

    /// The largest rectangle with the source's display aspect inside the safe area of a
    /// `width`×`height` output, centred (any odd pixel goes to the right/bottom bar).
    public static func rect(
        for source: SourceShape, width: Int, height: Int,
        overscanPercent: Double = 0
    ) -> PixelRect {
        let area = safeArea(width: width, height: height, overscanPercent: overscanPercent)
        return rect(aspect: source.displayAspect, in: area)
    }

    /// The size of a preview of a `width`×`height` output: the largest size with the
    /// output's aspect that fits in `maxWidth`×`maxHeight` (0 = no limit on that side) and
    /// is no larger than the output itself.
    public static func previewSize(width: Int, height: Int, maxWidth: Int, maxHeight: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return (max(1, width), max(1, height)) }
        let mw = maxWidth > 0 ? min(maxWidth, width) : width
        let mh = maxHeight > 0 ? min(maxHeight, height) : height
        let r = rect(aspect: Double(width) / Double(height), in: PixelRect(x: 0, y: 0, width: mw, height: mh))
        return (max(1, r.width), max(1, r.height))
    }

    /// The largest rectangle of display aspect `aspect` (width/height) centred in `area`.
    public static func rect(aspect: Double, in area: PixelRect) -> PixelRect {
        guard aspect.isFinite, aspect > 0, !area.isEmpty else { return area }
        let areaAspect = Double(area.width) / Double(area.height)
        var w = area.width, h = area.height
        if aspect < areaAspect {   // narrower than the area: bars left and right
            w = min(area.width, max(1, Int((Double(area.height) * aspect).rounded())))
        } else if aspect > areaAspect {   // wider: bars top and bottom
            h = min(area.height, max(1, Int((Double(area.width) / aspect).rounded())))
        }
        return PixelRect(
            x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2,
            width: w, height: h)
    }
}
