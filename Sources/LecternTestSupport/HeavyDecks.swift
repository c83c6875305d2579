import Foundation

extension Fixtures {
    /// `pages` pages of one grainy photograph (PNG compresses it badly), each placed
    /// differently, so no two pages render alike: previews that cost what they say.
    public static func photoPagesDeck(_ pages: Int, in dir: String) throws -> String {
        let w = 960, h = 540
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        for i in pixels.indices {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            pixels[i] = UInt8(truncatingIfNeeded: (seed >> 33) % 200 + UInt64(i % w) / 20)
        }
        var pdf = RawPDF()
        let image = pdf.reserve()
        pdf.defineStream(image, "/Type /XObject /Subtype /Image /Width \(w) /Height \(h) /ColorSpace /DeviceRGB /BitsPerComponent 8", pixels)
        for p in 0..<pages {
            let s = 1.0 + Double(p) * 0.1
            let draw = pdf.addStream("", "q \(Double(w) * s) 0 0 \(Double(h) * s) \(-p * 20) \(-p * 10) cm /Im1 Do Q")
            _ = pdf.addPage("/MediaBox [0 0 \(w) \(h)] /Contents \(draw) 0 R /Resources << /XObject << /Im1 \(image) 0 R >> >>")
        }
        let path = dir + "/photos.pdf"
        try pdf.write(to: path)
        return path
    }

    /// A one-page PDF with `padding` random bytes in a stream no page uses (poppler never
    /// reads it): a large file that costs nothing to show (downloads of a large deck).
    public static func largeDeck(padding: Int, in dir: String, name: String = "large.pdf") throws -> String {
        var pdf = RawPDF()
        let unused = pdf.reserve()
        pdf.defineStream(unused, "", noise(padding, seed: 0x2545_F491_4F6C_DD1D))
        let flat = pdf.addStream("", "1 1 1 rg 0 0 960 540 re f 0.86 0.12 0.16 rg 96 54 288 162 re f")
        _ = pdf.addPage("/MediaBox [0 0 960 540] /Contents \(flat) 0 R")
        let path = dir + "/" + name
        try pdf.write(to: path)
        return path
    }

    /// A deck of `pages` pages, each a different picture of noise `width × height` (nothing
    /// compresses it: the meeting record of it is about as large as its pixels).
    public static func noiseDeck(pages: Int, width: Int = 1280, height: Int = 720, in dir: String, name: String = "noise.pdf") throws -> String {
        var pdf = RawPDF()
        for n in 0..<pages {
            let image = pdf.reserve()
            pdf.defineStream(
                image, "/Type /XObject /Subtype /Image /Width \(width) /Height \(height) /ColorSpace /DeviceRGB /BitsPerComponent 8",
                noise(width * height * 3, seed: 0x9E37_79B9_7F4A_7C15 &+ UInt64(n)))
            let draw = pdf.addStream("", "q 960 0 0 540 0 0 cm /Im1 Do Q")
            _ = pdf.addPage("/MediaBox [0 0 960 540] /Contents \(draw) 0 R /Resources << /XObject << /Im1 \(image) 0 R >> >>")
        }
        let path = dir + "/" + name
        try pdf.write(to: path)
        return path
    }

    /// `count` seeded pseudo-random bytes.
    static func noise(_ count: Int, seed: UInt64) -> [UInt8] {
        var s = seed
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { p in
            var i = 0
            while i < count {
                s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                var v = s ^ (s >> 29)
                for _ in 0..<8 where i < count {
                    p[i] = UInt8(truncatingIfNeeded: v)
                    v >>= 8
                    i += 1
                }
            }
        }
        return out
    }
}
