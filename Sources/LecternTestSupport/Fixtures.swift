import Foundation
import LecternCore
import LecternRender

/// What the tests share: PDFs made with cairo, the reference tools, temporary folders and
/// the built binaries. Used by test targets only.
public enum Fixtures {
    /// A fresh folder under the system temp dir, removed by nobody (tests are short-lived).
    public static func tempDir(_ name: String = "t") -> String {
        let d = NSTemporaryDirectory() + "lectern-\(name)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// Colours the fixture pages use, away from black and white so bars and paper can't be
    /// confused with content.
    public static let red = RGB(220, 30, 40), green = RGB(30, 170, 60), blue = RGB(30, 60, 200),
                      yellow = RGB(240, 200, 20)

    /// A page with a coloured box in each quadrant corner, each 30 % of the page, and a thin
    /// gap of white paper around them.
    public static func quadrantPage(width: Double, height: Double, rotate: Int = 0) -> PDFSketch.Page {
        PDFSketch.Page(width: width, height: height, boxes: [
            .init(x: 0.1, y: 0.1, width: 0.3, height: 0.3, color: red),
            .init(x: 0.6, y: 0.1, width: 0.3, height: 0.3, color: green),
            .init(x: 0.1, y: 0.6, width: 0.3, height: 0.3, color: blue),
            .init(x: 0.6, y: 0.6, width: 0.3, height: 0.3, color: yellow),
        ], rotate: rotate)
    }

    /// Writes a PDF of `pages` into `dir` and returns its path.
    public static func pdf(_ pages: [PDFSketch.Page], in dir: String, name: String = "deck.pdf") throws -> String {
        let path = dir + "/" + name
        try PDFSketch.write(pages, to: path)
        return path
    }

    /// A deck of `count` 4:3 pages, page n has a box whose width grows with n and the page number as text.
    public static func numberedDeck(count: Int, in dir: String, name: String = "numbered.pdf") throws -> String {
        let pages = (1...count).map { n in
            PDFSketch.Page(width: 720, height: 540, boxes: [
                .init(x: 0.05, y: 0.05, width: 0.9 * Double(n) / Double(count), height: 0.1, color: blue),
            ], texts: [.init("Page \(n)", x: 0.1, y: 0.4, size: 0.15, bold: true)])
        }
        return try pdf(pages, in: dir, name: name)
    }

    // MARK: tools

    public struct ToolError: Error, CustomStringConvertible { public let description: String }

    /// Runs a program; throws with its stderr when it fails or is missing (tests fail loudly).
    @discardableResult
    public static func run(_ tool: String, _ args: [String], stdin: Data? = nil) throws -> (out: Data, err: String, status: Int32) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [tool] + args
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out; p.standardError = err; p.standardInput = inp
        do { try p.run() } catch { throw ToolError(description: "can't run \(tool): \(error)") }
        if let stdin { inp.fileHandleForWriting.write(stdin) }
        try? inp.fileHandleForWriting.close()
        var outData = Data(), errData = Data()
        let g = DispatchGroup()
        g.enter(); DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); g.leave() }
        g.enter(); DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); g.leave() }
        g.wait()
        p.waitUntilExit()
        let e = String(decoding: errData, as: UTF8.self)
        if p.terminationStatus == 127 { throw ToolError(description: "\(tool) is not installed (board/install-deps installs it): \(e)") }
        return (outData, e, p.terminationStatus)
    }

    /// pdftoppm's render of one page at exactly `width`×`height` pixels.
    public static func pdftoppm(_ pdf: String, page: Int, width: Int, height: Int) throws -> Frame {
        func render(_ w: Int, _ h: Int) throws -> Frame {
            let r = try run("pdftoppm", ["-f", "\(page)", "-l", "\(page)", "-scale-to-x", "\(w)",
                                         "-scale-to-y", "\(h)", "-singlefile", pdf])
            guard r.status == 0 else { throw ToolError(description: "pdftoppm failed: \(r.err)") }
            return try PPM.decode(r.out)
        }
        // pdftoppm's -scale-to-x/-y name the unrotated page's sides: swap for /Rotate 90 and 270.
        let f = try render(width, height)
        return f.width == width ? f : try render(height, width)
    }

    /// Where the package's built executables are (next to the test bundle).
    public static func binary(_ name: String) throws -> String {
        var dir = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        for b in Bundle.allBundles where b.bundlePath.hasSuffix(".xctest") {
            let candidate = b.bundleURL.deletingLastPathComponent().appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        let fallback = FileManager.default.currentDirectoryPath + "/.build/debug/" + name
        if FileManager.default.isExecutableFile(atPath: fallback) { return fallback }
        throw ToolError(description: "built binary \(name) not found: build with `swift build` (make test does)")
    }
}

/// Netpbm P6 (what pdftoppm and QEMU's screendump write).
public enum PPM {
    public static func decode(_ data: Data) throws -> Frame {
        let bytes = [UInt8](data)
        var i = 0
        func token() -> String {
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "#") { while i < bytes.count, bytes[i] != 0x0A { i += 1 } }
                else if bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
                else { break }
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

public enum PixelCompare {
    /// Mean absolute difference per channel (0–255) between `a`'s `rect` and all of `b`.
    public static func meanDifference(_ a: Frame, _ rect: PixelRect, _ b: Frame) -> Double {
        precondition(rect.width == b.width && rect.height == b.height)
        var total = 0
        for y in 0..<rect.height {
            let ra = (a.baseAddress + (rect.y + y) * a.stride).assumingMemoryBound(to: UInt32.self)
            let rb = (b.baseAddress + y * b.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<rect.width {
                let p = ra[rect.x + x], q = rb[x]
                total += abs(Int((p >> 16) & 0xFF) - Int((q >> 16) & 0xFF))
                    + abs(Int((p >> 8) & 0xFF) - Int((q >> 8) & 0xFF)) + abs(Int(p & 0xFF) - Int(q & 0xFF))
            }
        }
        return Double(total) / Double(rect.width * rect.height * 3)
    }
}
