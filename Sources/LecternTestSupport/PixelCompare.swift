import LecternModel

/// Comparing frames: the pixel tests' measure.
public enum PixelCompare {
    /// Mean absolute difference per channel (0–255) between `a`'s `rect` and all of `b`.
    public static func meanDifference(_ a: Frame, _ rect: PixelRect, _ b: Frame) -> Double {
        precondition(rect.width == b.width && rect.height == b.height)
        var total = 0
        for y in 0..<rect.height {
            let ra = (a.baseAddress + (rect.y + y) * a.stride).assumingMemoryBound(to: UInt32.self)
            let rb = (b.baseAddress + y * b.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<rect.width {
                let p = ra[rect.x + x], q = rb[x]
                total +=
                    abs(Int((p >> 16) & 0xFF) - Int((q >> 16) & 0xFF))
                    + abs(Int((p >> 8) & 0xFF) - Int((q >> 8) & 0xFF)) + abs(Int(p & 0xFF) - Int(q & 0xFF))
            }
        }
        return Double(total) / Double(rect.width * rect.height * 3)
    }

    /// How many pixels differ between two frames of the same size (all of them if the sizes differ).
    /// How many pixels of `frame` outside its safe area (`overscanPercent` at each edge)
    /// are not `background`: 0 when nothing drawn would be cut off by a projector's overscan.
    public static func pixelsInOverscanMargin(_ frame: Frame, overscanPercent: Double, background: RGB) -> Int {
        let safe = Fit.safeArea(width: frame.width, height: frame.height, overscanPercent: overscanPercent)
        var outside = 0
        for y in 0..<frame.height {
            for x in 0..<frame.width where !(safe.x..<safe.maxX).contains(x) || !(safe.y..<safe.maxY).contains(y) {
                if frame.pixel(x: x, y: y) != background { outside += 1 }
            }
        }
        return outside
    }

    public static func differingPixels(_ a: Frame, _ b: Frame) -> Int {
        guard a.width == b.width, a.height == b.height else { return max(a.width * a.height, b.width * b.height) }
        var n = 0
        for y in 0..<a.height {
            let ra = (a.baseAddress + y * a.stride).assumingMemoryBound(to: UInt32.self)
            let rb = (b.baseAddress + y * b.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<a.width where ra[x] & 0xFFFFFF != rb[x] & 0xFFFFFF { n += 1 }
        }
        return n
    }
}
