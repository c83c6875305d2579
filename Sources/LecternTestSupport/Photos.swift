import Foundation
import LecternModel

/// Photos and images for the tests of issue 29, made by real tools: ffmpeg (JPEG, PNG,
/// WebP, GIF), heif-enc from libheif-examples (HEIC, as an iPhone writes them: HEVC in a
/// HEIF container) and exiftool (EXIF orientation). Board/install-deps installs them all.
extension Fixtures {
    /// The upright picture's quadrants: top left, top right, bottom left, bottom right.
    public static let quadrantColors = [RGB(220, 30, 30), RGB(30, 180, 40), RGB(30, 60, 220), RGB(240, 220, 20)]

    /// A picture of four coloured quadrants (`quadrantColors`), `width` × `height`.
    public static func quadrants(width: Int, height: Int) -> Frame {
        let f = Frame(width: width, height: height)
        let c = quadrantColors
        f.fill(PixelRect(x: 0, y: 0, width: width / 2, height: height / 2), c[0])
        f.fill(PixelRect(x: width / 2, y: 0, width: width - width / 2, height: height / 2), c[1])
        f.fill(PixelRect(x: 0, y: height / 2, width: width / 2, height: height - height / 2), c[2])
        f.fill(PixelRect(x: width / 2, y: height / 2, width: width - width / 2, height: height - height / 2), c[3])
        return f
    }

    /// `frame` written as the image file `name` in `dir`, its format from the extension:
    /// .jpg/.png/.webp/.gif by ffmpeg, .heic by heif-enc (from a lossless PNG).
    public static func image(_ frame: Frame, in dir: String, name: String) throws -> String {
        let ppm = dir + "/" + name + ".ppm"
        try writePPM(frame, to: ppm)
        defer { unlink(ppm) }
        let out = dir + "/" + name
        let ext = (name as NSString).pathExtension.lowercased()
        if ext == "heic" {
            let png = dir + "/" + name + ".png"
            defer { unlink(png) }
            try check(run("ffmpeg", ["-loglevel", "error", "-y", "-i", ppm, png]), "ffmpeg")
            try check(run("heif-enc", ["-q", "90", png, "-o", out]), "heif-enc")
        } else {
            let quality = ext == "jpg" || ext == "jpeg" ? ["-q:v", "2"] : []
            try check(run("ffmpeg", ["-loglevel", "error", "-y", "-i", ppm] + quality + ["-frames:v", "1", out]), "ffmpeg")
        }
        return out
    }

    /// A JPEG as a phone held upright-in-portrait writes it: the sensor's picture is stored
    /// turned a quarter counter-clockwise, with EXIF orientation 6 ("turn 90° clockwise to
    /// show"). Shown right it is `upright`.
    public static func rotatedJPEG(_ upright: Frame, in dir: String, name: String = "portrait.jpg") throws -> String {
        let stored = Frame(width: upright.height, height: upright.width)
        // Turning the stored picture 90° clockwise gives the upright one: its top left
        // corner goes to the top right, so stored(x, y) = upright(W − 1 − y, x).
        for y in 0..<stored.height {
            for x in 0..<stored.width {
                stored.setPixel(x: x, y: y, upright.pixel(x: upright.width - 1 - y, y: x))
            }
        }
        let path = try image(stored, in: dir, name: name)
        try check(run("exiftool", ["-n", "-Orientation=6", "-overwrite_original", path]), "exiftool")
        return path
    }

    /// A HEIC as an iPhone writes one: HEVC in HEIF (heif-enc), the picture upright after
    /// the container's own transforms, and EXIF orientation 6 beside them (Apple repeats
    /// the `irot` rotation in EXIF, where a reader that also applied it would turn the
    /// picture a second time). Shown right it is `upright`.
    public static func iPhoneStyleHEIC(_ upright: Frame, in dir: String, name: String = "IMG_0001.heic") throws -> String {
        let path = try image(upright, in: dir, name: name)
        try check(run("exiftool", ["-n", "-Orientation=6", "-overwrite_original", path]), "exiftool")
        return path
    }

    /// An animated GIF: `first` for its first frame, then `second`.
    public static func animatedGIF(_ first: Frame, _ second: Frame, in dir: String, name: String = "animated.gif") throws -> String {
        let a = dir + "/" + name + ".1.ppm", b = dir + "/" + name + ".2.ppm"
        try writePPM(first, to: a)
        try writePPM(second, to: b)
        defer { unlink(a); unlink(b) }
        let out = dir + "/" + name
        try check(
            run("ffmpeg", ["-loglevel", "error", "-y", "-framerate", "2", "-i", dir + "/" + name + ".%d.ppm", "-loop", "0", out]), "ffmpeg")
        return out
    }

    /// A photograph-sized JPEG (`width` × `height`, 48 MP for 8000 × 6000) of ffmpeg's
    /// test pattern, with detail in every part (a camera's JPEG compresses alike).
    public static func bigPhoto(width: Int, height: Int, in dir: String, name: String = "big.jpg") throws -> String {
        let out = dir + "/" + name
        try check(
            run("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height)", "-frames:v", "1", "-q:v", "3", out]),
            "ffmpeg")
        return out
    }

    /// A PNG of a few dozen bytes whose header claims `width` × `height` pixels (a
    /// decompression bomb's header; the pixels it would need are never there).
    public static func pngClaiming(width: Int, height: Int, in dir: String, name: String = "bomb.png") throws -> String {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be32(data.count) + body + be32(Int(crc32(body)))
        }
        // 8-bit RGB; one zlib stream of a few zero rows (the rest is missing).
        let ihdr = be32(width) + be32(height) + [8, 2, 0, 0, 0]
        let idat: [UInt8] = [0x78, 0x9C, 0x63, 0x60, 0x18, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01]
        let bytes = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", [])
        let out = dir + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: out))
        return out
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    private static func writePPM(_ f: Frame, to path: String) throws {
        try PPM.encode(f).write(to: URL(fileURLWithPath: path))
    }

    private static func check(_ r: (out: Data, err: String, status: Int32), _ tool: String) throws {
        guard r.status == 0 else { throw ToolError(description: "\(tool) failed (\(r.status)): \(r.err.prefix(400))") }
    }
}
