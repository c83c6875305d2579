import CPangoCairo
import CPoppler
import Foundation
import LecternModel

/// Frames to PNG and back, through cairo's PNG support (libpng underneath). Lossless, so a
/// screenshot is exactly the frame on the output.
public enum PNG {
    public struct DecodeError: Error, CustomStringConvertible {
        public let description: String
    }

    private final class Sink { var data = Data() }
    private final class Source {
        let data: Data; var offset = 0
        init(_ d: Data) { data = d }
    }

    public static func encode(_ frame: Frame) -> Data {
        let c = CairoFrame(frame)
        defer { c.finish() }
        let sink = Sink()
        let box = Unmanaged.passRetained(sink)
        defer { box.release() }
        let write: cairo_write_func_t = { closure, bytes, length -> cairo_status_t in
            guard let closure, let bytes else { return CAIRO_STATUS_WRITE_ERROR }
            Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: Int(length))
            return CAIRO_STATUS_SUCCESS
        }
        cairo_surface_write_to_png_stream(c.surface, write, box.toOpaque())
        return sink.data
    }

    public static func write(_ frame: Frame, to path: String) throws {
        try encode(frame).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    public static func decode(_ data: Data) throws -> Frame {
        let source = Source(data)
        let box = Unmanaged.passRetained(source)
        defer { box.release() }
        let read: cairo_read_func_t = { closure, bytes, length -> cairo_status_t in
            guard let closure, let bytes else { return CAIRO_STATUS_READ_ERROR }
            let src = Unmanaged<Source>.fromOpaque(closure).takeUnretainedValue()
            let n = Int(length)
            guard src.offset + n <= src.data.count else { return CAIRO_STATUS_READ_ERROR }
            let start = src.data.startIndex + src.offset
            src.data.copyBytes(to: bytes, from: start..<(start + n))
            src.offset += n
            return CAIRO_STATUS_SUCCESS
        }
        guard let s = cairo_image_surface_create_from_png_stream(read, box.toOpaque()) else { throw DecodeError(description: "not a PNG") }
        defer { cairo_surface_destroy(s) }
        guard cairo_surface_status(s) == CAIRO_STATUS_SUCCESS else { throw DecodeError(description: "not a PNG") }
        let w = Int(cairo_image_surface_get_width(s)), h = Int(cairo_image_surface_get_height(s))
        guard w > 0, h > 0, let src = cairo_image_surface_get_data(s) else { throw DecodeError(description: "empty PNG") }
        let stride = Int(cairo_image_surface_get_stride(s))
        let frame = Frame(width: w, height: h)
        for y in 0..<h {
            let from = UnsafeRawPointer(src + y * stride).assumingMemoryBound(to: UInt32.self)
            let to = (frame.baseAddress + y * frame.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<w { to[x] = from[x] & 0x00FF_FFFF }   // drop alpha: PNGs here are opaque
        }
        return frame
    }

    public static func read(path: String) throws -> Frame {
        try decode(Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
