import Foundation
import Glibc
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

    /// A 640×480 (4:3) H.264 clip of one colour, `seconds` long at 25 fps, made with the
    /// ffmpeg CLI (libx264); throws, saying why, when ffmpeg fails.
    public static func clip(in dir: String, color: String = "red", seconds: Double = 2, name: String = "clip.mp4") throws -> String {
        let path = dir + "/" + name
        let r = try run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=\(color):s=640x480:r=25:d=\(seconds)",
                                   "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25", path])
        guard r.status == 0 else { throw ToolError(description: "ffmpeg made no clip: \(r.err)") }
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

    public struct ToolError: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Runs a program; throws when it is missing (tests fail loudly). Output goes through
    /// temporary files, not pipes, so a program that leaves a child running in the
    /// background (QEMU) doesn't keep us waiting for an end of file.
    @discardableResult
    public static func run(_ tool: String, _ args: [String], stdin: Data? = nil) throws -> (out: Data, err: String, status: Int32) {
        let base = NSTemporaryDirectory() + "lectern-run-\(UUID().uuidString)"
        let outPath = base + ".out", errPath = base + ".err", inPath = base + ".in"
        defer { for p in [outPath, errPath, inPath] { unlink(p) } }
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        _ = FileManager.default.createFile(atPath: inPath, contents: stdin ?? Data())
        // posix_spawn and waitpid, not Foundation's Process: Process learns of the exit
        // through a descriptor that background grandchildren (QEMU) inherit and keep open.
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_TRUNC, 0o600)
        let argv = (["/usr/bin/env", tool] + args).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
        guard rc == 0 else { throw ToolError(description: "can't run \(tool): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7f == 0
        let code: Int32 = exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let outData = (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data()
        let e = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        if code == 127 { throw ToolError(description: "\(tool) is not installed (board/install-deps installs it): \(e)") }
        return (outData, e, code)
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

/// A plain TCP socket with no protocol logic (no pongs): what a broken or hostile client is.
public final class RawSocket {
    let fd: Int32

    public init(host: String = "127.0.0.1", port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &addr.sin_addr)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { close(); throw Fixtures.ToolError(description: "connect: \(String(cString: strerror(errno)))") }
    }

    public func send(_ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }

    /// Bytes received within `timeout` seconds; empty when the peer closed; nil on time-out.
    public func receive(timeout: Double) -> [UInt8]? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(max(0, timeout) * 1000)) > 0 else { return nil }
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &buf, buf.count, 0)
        return n <= 0 ? [] : Array(buf[0..<n])
    }

    private var closed = false
    /// Closes once: a second close(2) could close an fd number the process reused meanwhile
    /// (a socket the service in this process just accepted).
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }
    deinit { close() }
}

extension Fixtures {
    /// Waits between two polls of something outside this process (a screen, a port); the
    /// poll, not the wait, is the synchronisation.
    @discardableResult
    public static func wait(seconds: Double) -> Bool {
        var ts = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        return nanosleep(&ts, nil) == 0
    }
}

/// A program started by a test and kept running (a real lecternd), its output collected.
public final class RunningProcess {
    public let process = Process()
    private let lock = NSCondition()
    private var output = ""

    public init(_ path: String, _ args: [String], environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = args
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self else { return }
            self.lock.lock()
            self.output += String(decoding: d, as: UTF8.self)
            self.lock.broadcast()
            self.lock.unlock()
            if d.isEmpty { h.readabilityHandler = nil }
        }
        try process.run()
    }

    public var text: String { lock.lock(); defer { lock.unlock() }; return output }

    /// Waits until the output matches `predicate` (returns the output) or the process exits.
    public func waitForOutput(timeout: Double = 30, _ predicate: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock(); defer { lock.unlock() }
        while !predicate(output) {
            if !process.isRunning && !predicate(output) {
                throw Fixtures.ToolError(description: "process exited (\(process.terminationStatus)): \(output)")
            }
            if !lock.wait(until: min(deadline, Date().addingTimeInterval(0.5))) && Date() >= deadline {
                throw Fixtures.ToolError(description: "timed out waiting for output: \(output)")
            }
        }
        return output
    }

    public func kill(_ signal: Int32 = SIGTERM) {
        if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
    }

    public func waitForExit() -> Int32 { process.waitUntilExit(); return process.terminationStatus }

    deinit { kill(SIGKILL); process.waitUntilExit() }
}

extension PixelCompare {
    /// How many pixels differ between two frames of the same size (all of them if the sizes differ).
    public static func differingPixels(_ a: Frame, _ b: Frame) -> Int {
        guard a.width == b.width, a.height == b.height else { return max(a.width * a.height, b.width * b.height) }
        var n = 0
        for y in 0..<a.height {
            let ra = (a.baseAddress + y * a.stride).assumingMemoryBound(to: UInt32.self)
            let rb = (b.baseAddress + y * b.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<a.width where ra[x] & 0xFFFFFF != rb[x] & 0xFFFFFF { n += 1 }
        }
        return n
    }
}

extension Fixtures {
    /// A TCP port on 127.0.0.1 that is free now (for programs the test starts).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { throw ToolError(description: "no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
