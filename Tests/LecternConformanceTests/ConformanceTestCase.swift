import Crypto
import Foundation
import LecternModel
import LecternTestSupport
import XCTest

/// A real service on a real socket (in this process), spoken to with the raw frames of
/// RawWire.swift, over TLS as the service ships (§25.5: pinned to its certificate). The passcodes are stored as §7.1 hashes of 10,000 rounds, so a register
/// costs little.
class ConformanceTestCase: XCTestCase {
    static let presenterPass = "conformance-presenter"
    static let moderatorPass = "conformance-moderator"
    static let salt: [UInt8] = Array(0x10...0x1F)
    static let presenterKey = Proof.key(presenterPass, salt: salt, rounds: 10_000)
    static let moderatorKey = Proof.key(moderatorPass, salt: salt, rounds: 10_000)

    static func stored(_ key: [UInt8]) -> String {
        "pbkdf2-sha256$10000$\(Data(salt).base64EncodedString())$\(Data(key).base64EncodedString())"
    }

    var harness: ServiceHarness!

    func start(_ floor: FloorMode = .open, webRemote: Bool = false, tweak: @escaping (inout Config) -> Void = { _ in }) throws {
        harness = try ServiceHarness(floor: floor, webRemote: webRemote) {
            $0.passcode = Self.stored(Self.presenterKey)
            $0.moderatorPasscode = Self.stored(Self.moderatorKey)
            tweak(&$0)
        }
    }

    override func tearDown() {
        harness = nil
        super.tearDown()
    }

    /// A connection with its hello read (C1).
    func connect(file: StaticString = #filePath, line: UInt = #line) throws -> RawPeer {
        if harness == nil { try start() }
        let p = RawPeer(socket: try harness.raw())
        let hello = try XCTUnwrap(p.next(), "no hello", file: file, line: line)
        XCTAssertEqual(hello.command, 0x10, file: file, line: line)
        p.hello = RawHello(hello.body)
        return p
    }

    /// A register body (§6.2) with a proof made from `passcode`.
    func registerBody(
        _ p: RawPeer, name: String, role: UInt8 = 1, passcode: String? = nil, token: [UInt8] = [], version: UInt16 = 1
    ) -> [UInt8] {
        // A viewer (role 3) proves the room passcode with the presenter's parameters (§24.1).
        let moderator = role == 2
        let params = moderator ? p.hello.moderator : p.hello.presenter
        let pass = passcode ?? (moderator ? Self.moderatorPass : Self.presenterPass)
        let key =
            params.salt == Self.salt && params.rounds == 10_000 && passcode == nil
            ? (moderator ? Self.moderatorKey : Self.presenterKey) : Proof.key(pass, salt: params.salt, rounds: params.rounds)
        let n = Array(name.utf8)
        let proof = Proof.register(key: key, challenge: p.hello.challenge, role: role, name: n, token: token)
        return u16(version) + [role] + proof + [UInt8(token.count)] + token + u16(UInt16(n.count)) + n
    }

    /// Connects and registers; the register-ok is checked and the first state push read.
    func join(_ name: String, role: UInt8 = 1, file: StaticString = #filePath, line: UInt = #line) throws -> RawPeer {
        let p = try connect(file: file, line: line)
        let t = p.request(0x01, registerBody(p, name: name, role: role))
        let ok = try XCTUnwrap(p.next(), file: file, line: line)
        XCTAssertEqual(ok.command, 0x02, "register-ok: \(ok) \(String(describing: ok.error))", file: file, line: line)
        XCTAssertEqual(ok.tag, t, file: file, line: line)
        p.device = ok.body[0]
        p.token = Array(ok.body[3..<19])
        XCTAssertNotNil(p.statePush(), "the state push after register-ok", file: file, line: line)
        return p
    }

    /// The error body of `f`, failing when `f` is not a failure in `command`.
    @discardableResult
    func expectFailure(
        _ f: RawFrame?, in command: UInt8, code: UInt16, file: StaticString = #filePath, line: UInt = #line
    ) -> (code: UInt16, closes: Bool, detail: UInt64, message: String)? {
        guard let f else {
            XCTFail("no reply (connection closed or silent)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(f.command, command, "\(f)", file: file, line: line)
        let e = f.error
        XCTAssertEqual(e?.code, code, String(format: "code 0x%04x: %@", e?.code ?? 0, e?.message ?? "not an error body"), file: file, line: line)
        return e
    }

    // MARK: content, uploaded with the frames of §6.7

    /// Uploads `path` whole (kind 0, no possession proof) and returns its content id and
    /// every frame the upload got, upload-stored (or the failure) last.
    func upload(_ p: RawPeer, path: String, name: String? = nil, announce hash: [UInt8]? = nil) throws -> (id: [UInt8], frames: [RawFrame]) {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let id = hash ?? Array(SHA256.hash(data: data))
        let n = Array((name ?? (path as NSString).lastPathComponent).utf8)
        let begin = p.request(0x38, id + u64(UInt64(data.count)) + [0] + [UInt8](repeating: 0, count: 32) + u16(UInt16(n.count)) + n)
        let ready = try XCTUnwrap(p.reply(to: begin))
        guard ready.command == 0x39, ready.body.count >= 41 else {
            XCTFail("upload-ready: \(ready) \(String(describing: ready.error))")
            return (id, [ready])
        }
        var offset = Int(be64(ready.body, 33))
        while offset < data.count {
            let end = min(data.count, offset + 1 << 20)
            p.request(0x3A, id + u64(UInt64(offset)) + data[offset..<end])
            offset = end
        }
        let finish = p.request(0x3B, id)
        var frames: [RawFrame] = []
        while let f = p.next(timeout: 30) {
            if f.command == 0x15 { continue }
            frames.append(f)
            if f.tag == finish { break }
        }
        return (id, frames)
    }
}
