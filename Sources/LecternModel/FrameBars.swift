extension Frame {
    /// Everything of `area` (the whole frame by default) outside `inner` becomes `color`: a
    /// picture's bars, written after the picture so they are exact whatever the scaler wrote
    /// (and whatever the buffer held before).
    public func fillBars(around inner: PixelRect, in area: PixelRect? = nil, _ color: RGB) {
        let a = area ?? bounds
        fill(PixelRect(x: a.x, y: a.y, width: a.width, height: inner.y - a.y), color)
        fill(PixelRect(x: a.x, y: inner.maxY, width: a.width, height: a.maxY - inner.maxY), color)
        fill(PixelRect(x: a.x, y: inner.y, width: inner.x - a.x, height: inner.height), color)
        fill(PixelRect(x: inner.maxX, y: inner.y, width: a.maxX - inner.maxX, height: inner.height), color)
    }
}
