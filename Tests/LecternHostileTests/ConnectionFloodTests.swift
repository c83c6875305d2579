import Glibc
import LecternClient
import LecternProtocol
import LecternTestSupport
import XCTest

/// ~1100 idle or slowloris connections used all 1024 descriptors, and while they stayed
/// open new connections on both ports failed. Now connections are capped per address and
/// in total, the last places kept for registered devices, and a newcomer gets in.
final class ConnectionFloodTests: XCTestCase {
    var oldLimit = 0
    override func setUp() { oldLimit = Footprint.setDescriptorLimit(3000) }
    override func tearDown() { Footprint.setDescriptorLimit(oldLimit) }

    func testTheRoomStaysUsableWhileTwoThousandConnectionsAreHeld() throws {
        let h = try ServiceHarness(webRemote: true) {
            $0.maxConnections = 512
            $0.maxConnectionsPerAddress = 64
            $0.connectionsReservedForDevices = 128
        }
        let webPort = try XCTUnwrap(h.service.httpPort)
        // A registered device before the flood.
        let device = try h.presenter("Before")
        defer { device.close() }
        try eventually("the room to tell the gate it registered", timeout: 5) { h.service.connectionCounts.registered == 1 }

        // 2000 connections from 20 addresses, half to each port, over TLS as the service
        // ships: the handshake, then never a byte. (A connection that never starts TLS is
        // closed after TransportPolicy.plainHelloDelay on the protocol port: holding one
        // takes a handshake.) Those over the limits are refused at once: no handshake.
        var held: [RawSocket] = []
        defer { for s in held { s.close() } }
        let start = Date()
        var refusedAtOnce = 0
        for i in 0..<2000 {
            if let s = try? h.raw(port: i % 2 == 0 ? h.port : webPort, from: "127.0.0.\(2 + i % 20)") { held.append(s) } else { refusedAtOnce += 1 }
        }
        print(
            "flood: 2000 connections in \(String(format: "%.1f", Date().timeIntervalSince(start))) s (\(refusedAtOnce) refused before a handshake), the service holds \(h.service.connectionCounts)"
        )
        XCTAssertLessThanOrEqual(h.service.connectionCounts.open, 512)

        // A refused protocol connection is told why. Read as plain bytes: on the TLS port
        // the refusal is still written before any TLS (issue 25, point 10, fixed apart).
        let refused = try RawSocket(port: h.port, from: "127.0.0.2")
        held.append(refused)
        let told = Hostile.messages(refused.read(timeout: 5) { !Hostile.messages($0).isEmpty })
        XCTAssertEqual(told.first?.error?.code, .tooManyConnections)

        // Someone new in the room registers and gets the state, within seconds.
        let t0 = Date()
        let newcomer = try h.connect()
        defer { newcomer.close() }
        _ = try newcomer.register(name: "During", role: .presenter, passcode: ServiceHarness.presenterPass)
        _ = try newcomer.state()
        print("flood: a newcomer registered and had the state in \(String(format: "%.2f", Date().timeIntervalSince(t0))) s")
        XCTAssertLessThan(Date().timeIntervalSince(t0), 5)
        // The device from before is still there, and the web remote still serves its page.
        _ = try device.state()
        let page = try h.raw(port: webPort, from: "127.0.0.1")
        held.append(page)
        page.sendNow(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        XCTAssertEqual(Hostile.status(page.read(timeout: 5) { Hostile.headEnd($0) != nil }), 200)
    }

    func testARefusedClientIsToldWhy() throws {
        let h = try ServiceHarness { $0.maxConnectionsPerAddress = 2 }
        let a = try h.connect(), b = try h.connect()
        defer { a.close(); b.close() }
        // Plain: on the TLS port the refusal is still written before any TLS (issue 25,
        // point 10, fixed apart), so only a plain client can read it today.
        XCTAssertThrowsError(try LecternConnection(host: "127.0.0.1", port: h.port, timeout: 5)) { error in
            XCTAssertEqual(error as? LecternConnection.ClientError, .server(.tooManyConnections))
            XCTAssertEqual("\(error)", "Too many connections — try again shortly.")
        }
    }

    func testARefusedWebSocketGetsOneErrorFrameThenTheClose() throws {
        let h = try ServiceHarness(webRemote: true) { $0.maxConnectionsPerAddress = 2 }
        let port = try XCTUnwrap(h.service.httpPort)
        let a = try h.raw(port: port), b = try h.raw()
        defer { a.close(); b.close() }
        try eventually("both connections accepted") { h.service.connectionCounts.open == 2 }
        let ws = try h.raw(port: port)
        defer { ws.close() }
        ws.sendNow(Hostile.upgradeRequest(port: port, origin: nil))
        // 101, one binary message (the error frame), a close frame, the end.
        let got = ws.read(timeout: 5) { _ in false }
        XCTAssertEqual(Hostile.status(got), 101)
        let rest = Array(got[(Hostile.headEnd(got) ?? got.count)...])
        XCTAssertGreaterThanOrEqual(rest.count, 2)
        guard rest.count >= 2, rest[0] == 0x82, rest[1] < 126, rest.count >= 2 + Int(rest[1]) else { return XCTFail("no binary message: \(rest)") }
        let frame = Array(rest[2..<(2 + Int(rest[1]))])
        XCTAssertEqual(Hostile.messages(frame).first?.error?.code, .tooManyConnections)
        XCTAssertEqual(rest[2 + Int(rest[1])], 0x88, "no close frame after the error")
    }
}
