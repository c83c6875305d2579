import Foundation
import Glibc
import LecternProtocol
import LecternTestSupport

/// What the attacks of issue 12 ("A hostile room") read and write: protocol frames and HTTP
/// heads, over `RawSocket`s from any loopback address (`Footprint` measures the cost).
/// Each attack is a test file of this target.
enum Hostile {
    /// The first protocol frames in `bytes`.
    static func messages(_ bytes: [UInt8]) -> [Message] {
        var d = FrameDecoder()
        d.feed(bytes)
        var out: [Message] = []
        while let f = try? d.next(), let m = try? Message.decode(f, sentBy: .server) { out.append(m) }
        return out
    }

    /// A WebSocket upgrade request for `/ws` on `port`, with `origin` if given.
    static func upgradeRequest(port: Int, origin: String?) -> [UInt8] {
        var r = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        r += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let origin { r += "Origin: \(origin)\r\n" }
        return Array((r + "\r\n").utf8)
    }

    /// The status code of an HTTP response's first line (0 if none).
    static func status(_ bytes: [UInt8]) -> Int {
        let line = String(decoding: bytes.prefix(while: { $0 != 13 }), as: UTF8.self)
        let parts = line.split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
    }

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i + 4 }
        return nil
    }
}
