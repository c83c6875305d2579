import Crypto
import Foundation
import LecternTestSupport
import XCTest
import _CryptoExtras

// The protocol written by hand from docs/protocol.md: headers, bodies, the proof. Nothing
// here uses LecternProtocol or LecternClient — the codec under test — only bytes.

/// One frame as §2.3 lays it out.
struct RawFrame: CustomStringConvertible {
    var command: UInt8
    var device: UInt8
    var tag: UInt16
    var body: [UInt8]

    var description: String { String(format: "frame 0x%02x dev %d tag %d, %d body bytes", command, device, tag, body.count) }

    /// The error body of §6.1 (register-failed, control-failed, error, and share-ended's, §29.2).
    var error: (code: UInt16, closes: Bool, detail: UInt64, message: String)? {
        guard [0x03, 0x0E, 0x14, 0xD8].contains(command), body.count >= 14 else { return nil }
        let n = Int(be16(body, 12))
        return (be16(body, 0), body[2] & 1 != 0, be64(body, 4), String(decoding: body[14..<(14 + n)], as: UTF8.self))
    }

    /// The state's JSON (§14.2).
    var json: [String: Any]? {
        guard command == 0x15 else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }
}

func be16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) << 8 | UInt16(b[at + 1]) }
func be32(_ b: [UInt8], _ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 << 8 | UInt32(b[at + $1]) } }
func be64(_ b: [UInt8], _ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 << 8 | UInt64(b[at + $1]) } }
func u16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (24 - 8 * UInt32($0))) & 0xFF) } }
func u64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8((v >> (56 - 8 * UInt64($0))) & 0xFF) } }

/// An 8-byte header and the body: the length field counts both (§2.3).
func frame(_ command: UInt8, device: UInt8, tag: UInt16, _ body: [UInt8] = []) -> [UInt8] {
    [command, device] + u16(tag) + u32(UInt32(8 + body.count)) + body
}

/// What hello (§6.1) says.
struct RawHello {
    var version: UInt16
    var challenge: [UInt8]
    var maxFrameLength: UInt32
    var pingIntervalMs: UInt32
    var timeoutMs: UInt32
    var presenter: (rounds: UInt32, salt: [UInt8])
    var moderator: (rounds: UInt32, salt: [UInt8])
    var room: String

    init(_ b: [UInt8]) {
        version = be16(b, 0)
        challenge = Array(b[2..<34])
        maxFrameLength = be32(b, 34)
        pingIntervalMs = be32(b, 38)
        timeoutMs = be32(b, 42)
        var at = 46
        func role() -> (UInt32, [UInt8]) {
            let rounds = be32(b, at)
            let n = Int(b[at + 4])
            defer { at += 5 + n }
            return (rounds, Array(b[(at + 5)..<(at + 5 + n)]))
        }
        presenter = role()
        moderator = role()
        let r = Int(be16(b, at))
        room = String(decoding: b[(at + 2)..<(at + 2 + r)], as: UTF8.self)
    }
}

/// §7.2: PBKDF2-HMAC-SHA256 of the passcode, then the HMAC over the register's fields.
enum Proof {
    static func key(_ passcode: String, salt: [UInt8], rounds: UInt32) -> [UInt8] {
        let k = try! KDF.Insecure.PBKDF2.deriveKey(
            from: Array(passcode.precomposedStringWithCanonicalMapping.utf8), salt: salt, using: .sha256,
            outputByteCount: 32, unsafeUncheckedRounds: Int(rounds))
        return k.withUnsafeBytes { Array($0) }
    }

    static func register(key: [UInt8], challenge: [UInt8], role: UInt8, name: [UInt8], token: [UInt8]) -> [UInt8] {
        let input = Array("lectern-register-v1".utf8) + challenge + [role] + u16(UInt16(name.count)) + name + [UInt8(token.count)] + token
        return Array(HMAC<SHA256>.authenticationCode(for: input, using: SymmetricKey(data: key)))
    }
}

/// A connection that speaks bytes: reads whole frames, answers the server's pings (§3) so
/// a slow machine never times it out, and keeps every other frame in order.
final class RawPeer {
    let socket: RawSocket
    private var buffer: [UInt8] = []
    private(set) var closed = false
    var device: UInt8 = 0xFF
    var hello: RawHello!
    var tag: UInt16 = 0
    /// Register-ok's body, once registered.
    var token: [UInt8] = []

    /// Over `socket` (TLS as the service ships, or plain where a test is about plain).
    init(socket: RawSocket) {
        self.socket = socket
    }

    func send(_ bytes: [UInt8]) { socket.send(bytes) }

    /// Sends a request with the next tag (§2.3: 1, 2, 3 …) and returns the tag.
    @discardableResult
    func request(_ command: UInt8, _ body: [UInt8] = [], device: UInt8? = nil) -> UInt16 {
        tag = tag == 65535 ? 1 : tag + 1
        send(frame(command, device: device ?? self.device, tag: tag, body))
        return tag
    }

    /// The next frame, pings answered on the way; nil when the server closed the connection
    /// (or nothing came within `timeout`: a failure for the caller to report).
    func next(timeout: Double = 10) -> RawFrame? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if buffer.count >= 8 {
                let length = Int(be32(buffer, 4))
                if length >= 8, buffer.count >= length {
                    let f = RawFrame(command: buffer[0], device: buffer[1], tag: be16(buffer, 2), body: Array(buffer[8..<length]))
                    buffer.removeFirst(length)
                    if f.command == 0x11, f.tag == 0 {   // the server's ping: pong, same nonce and tag
                        send(frame(0x12, device: device, tag: 0, f.body))
                        continue
                    }
                    return f
                }
            }
            if closed { return nil }
            let left = deadline.timeIntervalSinceNow
            guard left > 0, let bytes = socket.receive(timeout: left) else { return nil }
            if bytes.isEmpty { closed = true } else { buffer += bytes }
        }
    }

    /// The next frame that is not a state push (tag 0, device 0).
    func reply(timeout: Double = 10) -> RawFrame? {
        while let f = next(timeout: timeout) {
            if f.command == 0x15, f.tag == 0 { continue }
            return f
        }
        return nil
    }

    /// The next frame with `tag` (the direct reply to that request), others skipped.
    func reply(to tag: UInt16, timeout: Double = 30) -> RawFrame? {
        while let f = next(timeout: timeout) { if f.tag == tag { return f } }
        return nil
    }

    /// The next state push.
    func statePush(timeout: Double = 10) -> [String: Any]? {
        while let f = next(timeout: timeout) { if f.command == 0x15, f.tag == 0 { return f.json } }
        return nil
    }

    /// Every frame up to the pong of a ping sent now: what the server sent before it (the
    /// server answers in order, §2.6), without waiting for a time to pass.
    func drain() -> [RawFrame] {
        let t = request(0x11, u32(0xB0B0))
        var seen: [RawFrame] = []
        while let f = next() {
            if f.command == 0x12, f.tag == t { return seen }
            seen.append(f)
        }
        return seen
    }

    /// True once the server closed the connection (frames before it are dropped).
    func isClosed(timeout: Double = 10) -> Bool {
        while next(timeout: timeout) != nil {}
        return closed
    }
}
