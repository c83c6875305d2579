import LecternModel

/// Pixel reads and writes the tests need and the service doesn't.
extension Frame {
    /// True when every pixel of `rect` (clipped to the frame) is `color`.
    public func isUniform(_ rect: PixelRect, _ color: RGB) -> Bool {
        for y in max(0, rect.y)..<min(height, rect.maxY) {
            for x in max(0, rect.x)..<min(width, rect.maxX) where pixel(x: x, y: y) != color { return false }
        }
        return true
    }

    public func setPixel(x: Int, y: Int, _ c: RGB) { fill(PixelRect(x: x, y: y, width: 1, height: 1), c) }
}
