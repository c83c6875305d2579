import Foundation
import LecternModel

extension Fixtures {
    /// A two-page 16:9 deck (960 × 540 points): page 1 a photograph-like image (smooth colour
    /// with a fine grain in every pixel: PNG compresses it badly, JPEG well), page 2 a flat
    /// slide (coloured boxes on white). Seeded: the same every run.
    public static func photoDeck(in dir: String, name: String = "photo.pdf") throws -> String {
        let w = 960, h = 540
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func grain() -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % 9) - 4
        }
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let u = Double(x) / Double(w), v = Double(y) / Double(h)
                let i = (y * w + x) * 3
                pixels[i] = UInt8(clamping: Int(128 + 100 * sin(u * 5.1 + v * 1.3)) + grain())
                pixels[i + 1] = UInt8(clamping: Int(128 + 90 * sin(v * 4.2 + u * 0.7)) + grain())
                pixels[i + 2] = UInt8(clamping: Int(128 + 100 * cos(u * 2.3 - v * 3.1)) + grain())
            }
        }
        var pdf = RawPDF()
        let image = pdf.reserve()
        pdf.defineStream(image, "/Type /XObject /Subtype /Image /Width \(w) /Height \(h) /ColorSpace /DeviceRGB /BitsPerComponent 8", pixels)
        let photo = pdf.addStream("", "q \(w) 0 0 \(h) 0 0 cm /Im1 Do Q")
        _ = pdf.addPage("/MediaBox [0 0 \(w) \(h)] /Contents \(photo) 0 R /Resources << /XObject << /Im1 \(image) 0 R >> >>")
        let flat = pdf.addStream(
            "", "1 1 1 rg 0 0 \(w) \(h) re f 0.86 0.12 0.16 rg 96 54 288 162 re f 0.12 0.67 0.24 rg 576 54 288 162 re f 0.12 0.24 0.78 rg 96 324 288 162 re f")
        _ = pdf.addPage("/MediaBox [0 0 \(w) \(h)] /Contents \(flat) 0 R")
        let path = dir + "/" + name
        try pdf.write(to: path)
        return path
    }
}
