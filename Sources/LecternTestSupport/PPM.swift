import Foundation
import LecternModel

/// Netpbm P6 (what pdftoppm and QEMU's screendump write).
public enum PPM {
    /// `frame` as a P6 file's bytes (what pdftoppm and vips read).
    public static func encode(_ frame: Frame) -> Data {
        var data = Data("P6\n\(frame.width) \(frame.height)\n255\n".utf8)
        var rgb = [UInt8](repeating: 0, count: frame.width * frame.height * 3)
        var i = 0
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let c = frame.pixel(x: x, y: y)
                rgb[i] = c.r; rgb[i + 1] = c.g; rgb[i + 2] = c.b
                i += 3
            }
        }
        data.append(contentsOf: rgb)
        return data
    }

    public static func decode(_ data: Data) throws -> Frame {
        let bytes = [UInt8](data)
        var i = 0
        func token() -> String {
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "#") {
                    while i < bytes.count, bytes[i] != 0x0A { i += 1 }
                } else if bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 {
                    i += 1
                } else {
                    break
                }
            }
            var s = ""
            while i < bytes.count, !(bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09) {
                s.append(Character(UnicodeScalar(bytes[i]))); i += 1
            }
            return s
        }
        guard token() == "P6", let w = Int(token()), let h = Int(token()), token() == "255" else {
            throw Fixtures.ToolError(description: "not a P6 PPM")
        }
        i += 1
        guard bytes.count - i >= w * h * 3 else { throw Fixtures.ToolError(description: "short PPM") }
        let f = Frame(width: w, height: h)
        bytes.withUnsafeBufferPointer { b in
            for y in 0..<h {
                let row = (f.baseAddress + y * f.stride).assumingMemoryBound(to: UInt32.self)
                var o = i + y * w * 3
                for x in 0..<w {
                    row[x] = UInt32(b[o]) << 16 | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]); o += 3
                }
            }
        }
        return f
    }
}
