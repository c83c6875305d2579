import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// The web remote's WebSocket at /ws, without a browser: protocol frames in binary
/// messages, in any slicing, and a fatal error before the close.
final class WebSocketTests: XCTestCase {
    func testTheWebSocketCarriesProtocolFramesInAnySlicing() throws {
        let h = try ServiceHarness.web(browsers: false)
        let ws = try WebSocketProbe(port: h.service.httpPort!, tls: h.fingerprint)
        guard case .hello(let hello)? = try ws.nextMessage() else { return XCTFail("no hello first") }
        XCTAssertEqual(hello.room, "Room 4.12")

        // register split over two WebSocket messages; state-request and a ping in one.
        let proof = RegisterProof.compute(
            passcode: ServiceHarness.presenterPass, parameters: hello.presenter!,
            challenge: hello.challenge, role: .presenter, name: "probe", resumeToken: nil)
        let register = Message.register(RegisterRequest(role: .presenter, proof: proof, resumeToken: nil, name: "probe"))
            .encode(tag: 1, deviceID: 0xFF)
        ws.sendBinary(Array(register[..<5]))
        ws.sendBinary(Array(register[5...]))
        guard case .registerOK(let ok)? = try ws.nextMessage() else { return XCTFail("no register-ok") }
        XCTAssertEqual(ok.deviceID, 1)
        ws.sendBinary(Message.stateRequest.encode(tag: 2, deviceID: 1) + Message.ping(nonce: 77).encode(tag: 3, deviceID: 1))
        var sawState = false, sawPong = false
        while !(sawState && sawPong) {
            guard let (m, tag) = try ws.nextFrame() else { return XCTFail("closed") }
            if case .state(let s) = m, tag == 2 { sawState = true; XCTAssertEqual(s.devices.map(\.name), ["probe"]) }
            if case .pong(77) = m, tag == 3 { sawPong = true }
        }
        XCTAssertEqual(try h.device(named: "probe")?.connected, true, "the room sees the browser's device")

        // WebSocket ping → pong with the same data.
        ws.sendFrame(opcode: 0x9, payload: Array("are you there".utf8))
        let pong = try ws.nextControl(opcode: 0xA)
        XCTAssertEqual(pong, Array("are you there".utf8))

        // Text is not the protocol: closed with 1003.
        ws.sendFrame(opcode: 0x1, payload: Array("hello?".utf8))
        let close = try ws.nextControl(opcode: 0x8)
        XCTAssertEqual(close.prefix(2).map { $0 }, [0x03, 0xEB], "close code 1003")
        try eventually("the device to leave", timeout: 20) { try h.device(named: "probe") == nil }
    }

    func testAFatalProtocolErrorReachesTheBrowserBeforeTheClose() throws {
        let h = try ServiceHarness.web(browsers: false)
        let ws = try WebSocketProbe(port: h.service.httpPort!, tls: h.fingerprint)
        _ = try ws.nextMessage()
        // A header claiming 4 GiB: frameTooLarge, then the connection closes.
        ws.sendBinary([0x30, 0xFF, 0x00, 0x09, 0xFF, 0xFF, 0xFF, 0xFF])
        guard case .error(let e)? = try ws.nextMessage() else { return XCTFail("no error") }
        XCTAssertEqual(e.code, .frameTooLarge)
        XCTAssertTrue(e.closesConnection)
        XCTAssertEqual(try ws.nextControl(opcode: 0x8).prefix(2).map { $0 }, [0x03, 0xE8], "a normal close after it")
    }
}

/// A WebSocket client written by hand over a raw socket (RFC 6455; TLS pinned to `tls`, or
/// plain without): for checking the server's side of the transport without a browser.
final class WebSocketProbe {
    let socket: RawSocket
    private var buffer: [UInt8] = []
    private var decoder = FrameDecoder()

    init(port: Int, tls: CertificateFingerprint?) throws {
        socket = try RawSocket(port: port, tls: tls)
        socket.send(
            Array(
                ("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
        while !String(decoding: buffer, as: UTF8.self).contains("\r\n\r\n") { try fill() }
        let text = String(decoding: buffer, as: UTF8.self)
        let end = text.range(of: "\r\n\r\n")!
        let headLength = text[..<end.upperBound].utf8.count
        guard text.hasPrefix("HTTP/1.1 101"), text.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") else {
            throw WebDriverError("no WebSocket upgrade: \(text)")
        }
        buffer.removeFirst(headLength)
    }

    private func fill(timeout: Double = 10) throws {
        guard let bytes = socket.receive(timeout: timeout) else { throw WebDriverError("nothing from the server in \(timeout) s") }
        guard !bytes.isEmpty else { throw WebDriverError("the server closed the connection") }
        buffer += bytes
    }

    /// Client frames are masked (RFC 6455 §5.3).
    func sendFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true) {
        var f: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            f.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            f += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            f.append(0x80 | 127)
            for i in (0..<8).reversed() { f.append(UInt8((payload.count >> (8 * i)) & 0xFF)) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        f += mask
        f += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        socket.send(f)
    }

    func sendBinary(_ bytes: [UInt8]) { sendFrame(opcode: 0x2, payload: bytes) }

    /// The next WebSocket frame from the server: (opcode, payload).
    func readFrame() throws -> (UInt8, [UInt8]) {
        while true {
            if buffer.count >= 2 {
                let opcode = buffer[0] & 0x0F
                var length = Int(buffer[1] & 0x7F), at = 2
                if length == 126, buffer.count >= 4 {
                    length = Int(buffer[2]) << 8 | Int(buffer[3]); at = 4
                } else if length == 127, buffer.count >= 10 {
                    length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }; at = 10
                } else if length >= 126 {
                    try fill(); continue
                }
                if buffer.count >= at + length {
                    let payload = Array(buffer[at..<at + length])
                    buffer.removeFirst(at + length)
                    return (opcode, payload)
                }
            }
            try fill()
        }
    }

    /// The next protocol frame carried in binary messages, decoded; nil if the server closed.
    func nextFrame() throws -> (Message, UInt16)? {
        while true {
            if let frame = try decoder.next() { return (try Message.decode(frame, sentBy: .server), frame.header.tag) }
            let (opcode, payload) = try readFrame()
            if opcode == 0x8 { return nil }
            if opcode == 0x2 || opcode == 0x0 { decoder.feed(payload) }
        }
    }

    func nextMessage() throws -> Message? { try nextFrame()?.0 }

    /// Skips protocol traffic (the server's pings) until a control frame of `opcode`.
    func nextControl(opcode wanted: UInt8) throws -> [UInt8] {
        while true {
            let (opcode, payload) = try readFrame()
            if opcode == wanted { return payload }
        }
    }
}
