import LecternModel

/// Copies of frames into parts of other frames (a pane's picture into the wall).
enum Blit {
    /// `src` (whole) into `dst` at `x`,`y`, clipped to `dst`.
    static func copy(_ src: Frame, into dst: Frame, x: Int, y: Int) {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(dst.width, x + src.width), y1 = min(dst.height, y + src.height)
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 {
            let s = src.baseAddress + (row - y) * src.stride + (x0 - x) * 4
            let d = dst.baseAddress + row * dst.stride + x0 * 4
            d.copyMemory(from: s, byteCount: (x1 - x0) * 4)
        }
    }

    /// The part `area` of `src` into `dst` at `x`,`y`, clipped to both.
    static func copy(_ src: Frame, area: PixelRect, into dst: Frame, x: Int, y: Int) {
        let a = PixelRect(x: max(0, area.x), y: max(0, area.y), width: min(src.width, area.maxX) - max(0, area.x), height: min(src.height, area.maxY) - max(0, area.y))
        guard a.width > 0, a.height > 0 else { return }
        let dx = x + a.x - area.x, dy = y + a.y - area.y
        let x0 = max(0, dx), y0 = max(0, dy)
        let x1 = min(dst.width, dx + a.width), y1 = min(dst.height, dy + a.height)
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 {
            let s = src.baseAddress + (a.y + row - dy) * src.stride + (a.x + x0 - dx) * 4
            let d = dst.baseAddress + row * dst.stride + x0 * 4
            d.copyMemory(from: s, byteCount: (x1 - x0) * 4)
        }
    }

    /// Everything of `area` outside `inner` becomes `color` (a pane's bars).
    static func bars(_ frame: Frame, area: PixelRect, inner: PixelRect, _ color: RGB) {
        frame.fillBars(around: inner, in: area, color)
    }
}
