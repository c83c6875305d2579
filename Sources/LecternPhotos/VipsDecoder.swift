import CVips
import Foundation
import LecternModel

/// libvips, for the child that makes photos into a deck (never in the service's process):
/// the header of an image, and the image decoded upright to the size a page keeps.
enum VipsDecoder {
    struct Header: Equatable {
        var width: Int
        var height: Int
        /// EXIF orientation, 1–8 (1: none).
        var orientation: Int
        var format: ImageFormat
    }

    /// Why a file is not an image the appliance takes, or can't be read.
    enum Failure: Error, Equatable {
        /// No allowed loader reads it (another kind of file, or a format not taken).
        case notAnImage
        /// Its loader read it and failed.
        case damaged(String)
    }

    /// Starts libvips (once, in the child): one thread, no cache, only the loaders of `ImageFormat`.
    static func start() -> Bool {
        lectern_vips_start(CommandLine.arguments.first ?? "lecternd") == 0
    }

    /// The header of `path`; nothing is decoded.
    static func header(_ path: String) throws(Failure) -> Header {
        var w: Int32 = 0, h: Int32 = 0, o: Int32 = 1
        var loader: UnsafePointer<CChar>?
        let rc = lectern_vips_header(path, &w, &h, &o, &loader)
        let loaderClass = loader.map { String(cString: $0) } ?? ""
        guard let format = ImageFormat(loaderClass: loaderClass) else {
            _ = lastError()
            throw .notAnImage
        }
        guard rc == 0, w > 0, h > 0 else { throw .damaged(lastError()) }
        return Header(width: Int(w), height: Int(h), orientation: (1...8).contains(o) ? Int(o) : 1, format: format)
    }

    /// A decoded picture: `width` × `height` pixels as cairo's RGB24 lays them out (B, G,
    /// R, 255 bytes, rows of `width` × 4) in libvips's memory, given back when it goes.
    final class Pixels {
        let bgrx: UnsafeMutablePointer<UInt8>
        let width: Int
        let height: Int
        init(bgrx: UnsafeMutablePointer<UInt8>, width: Int, height: Int) {
            self.bgrx = bgrx
            self.width = width
            self.height = height
        }
        deinit { g_free(bgrx) }
    }

    /// `path` decoded upright (its EXIF orientation applied), fitted into `width` × `height`
    /// (never enlarged; JPEG shrinks while it loads), in sRGB on white.
    static func decode(_ path: String, width: Int, height: Int) throws(Failure) -> Pixels {
        var pixels: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0
        guard lectern_vips_decode(path, Int32(width), Int32(height), &pixels, &w, &h) == 0, let pixels, w > 0, h > 0 else {
            throw .damaged(lastError())
        }
        return Pixels(bgrx: pixels, width: Int(w), height: Int(h))
    }

    /// libvips's last error, first line, at most 200 characters (cleared).
    private static func lastError() -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        lectern_vips_error(&buffer, Int32(buffer.count))
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let line = text.split(separator: "\n").first.map(String.init) ?? "unknown"
        return String(line.prefix(200))
    }
}
