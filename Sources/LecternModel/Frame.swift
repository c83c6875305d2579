/// One picture for the output: XRGB8888, 32 bits a pixel (0x00RRGGBB in native byte order,
/// which is what DRM's XRGB8888 and cairo's RGB24 both mean on little-endian boards).
///
/// A frame owns its pixel memory; adapters draw into it through `baseAddress` and `stride`.
///
/// Sendable unchecked, and why that holds: every stored property is a `let` (the size,
/// the address, who frees it), so sharing the reference races on nothing but the pixels,
/// and the pixels have one writer at a time by the house's hand-over: a frame is drawn by
/// whoever made it (a render thread, the display loop, a decoder), then handed on by a
/// message or a queue and from then on only read (the page cache, the output, a
/// screenshot), or drawn again only by the one loop that owns it (the display loop's
/// composition frames). The compiler can't see that hand-over; the type can't express it
/// without copying every frame.
public final class Frame: @unchecked Sendable {
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next.
    public let stride: Int
    public let baseAddress: UnsafeMutableRawPointer
    private let owned: Bool
    /// Gives the memory back when the frame goes (a frame over a shared mapping: `munmap`).
    private let release: (@Sendable () -> Void)?

    public var byteCount: Int { stride * height }
    public var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// A new frame filled with `color`.
    public init(width: Int, height: Int, color: RGB = .black) {
        precondition(width > 0 && height > 0, "a frame needs pixels")
        self.width = width; self.height = height; self.stride = width * 4
        baseAddress = UnsafeMutableRawPointer.allocate(byteCount: width * 4 * height, alignment: 64)
        owned = true; release = nil
        fill(color)
    }

    /// A frame over memory someone else owns (a mapped DRM dumb buffer, say); that memory
    /// must outlive the frame.
    public init(wrapping memory: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int) {
        self.width = width; self.height = height; self.stride = stride
        baseAddress = memory; owned = false; release = nil
    }

    /// A frame over memory it owns but did not allocate (a page rendered by the render
    /// worker into a shared mapping): `release` gives it back when the frame goes.
    public init(adopting memory: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int, release: @escaping @Sendable () -> Void) {
        self.width = width; self.height = height; self.stride = stride
        baseAddress = memory; owned = false; self.release = release
    }

    deinit {
        if owned { baseAddress.deallocate() }
        release?()
    }

    @inline(__always) private func row(_ y: Int) -> UnsafeMutablePointer<UInt32> {
        (baseAddress + y * stride).assumingMemoryBound(to: UInt32.self)
    }

    public func pixel(x: Int, y: Int) -> RGB {
        precondition(x >= 0 && x < width && y >= 0 && y < height)
        return RGB(xrgb: row(y)[x])
    }

    public func fill(_ color: RGB) { fill(bounds, color) }

    public func fill(_ rect: PixelRect, _ color: RGB) {
        let x0 = max(0, rect.x), x1 = min(width, rect.maxX)
        let y0 = max(0, rect.y), y1 = min(height, rect.maxY)
        guard x0 < x1, y0 < y1 else { return }
        let v = color.xrgb
        for y in y0..<y1 { (row(y) + x0).update(repeating: v, count: x1 - x0) }
    }

    /// Copies `other` (same size) into this frame.
    public func copy(from other: Frame) {
        precondition(other.width == width && other.height == height, "frame sizes differ")
        if other.stride == stride {
            baseAddress.copyMemory(from: other.baseAddress, byteCount: byteCount)
        } else {
            for y in 0..<height {
                (baseAddress + y * stride).copyMemory(from: other.baseAddress + y * other.stride, byteCount: width * 4)
            }
        }
    }

    /// A new frame with the same pixels.
    public func clone() -> Frame {
        let f = Frame(uninitializedWidth: width, height: height)
        f.copy(from: self)
        return f
    }

    private init(uninitializedWidth width: Int, height: Int) {
        self.width = width; self.height = height; self.stride = width * 4
        baseAddress = UnsafeMutableRawPointer.allocate(byteCount: width * 4 * height, alignment: 64)
        owned = true; release = nil
    }
}
