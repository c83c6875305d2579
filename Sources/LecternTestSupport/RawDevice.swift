import LecternModel
import LecternSystem
import LecternProtocol

/// A device that speaks just enough of the protocol over a raw socket (TLS pinned to `tls`,
/// or plain without): registers, answers pings, and notes when state frames arrive (headers
/// only, no JSON decoding).
public final class RawDevice {
    public let socket: RawSocket
    var decoder = FrameDecoder()
    public var statesSeen = 0
    public var lastStateAt = 0.0
    public private(set) var id: UInt8 = 0xFF

    /// Connects and registers (as a presenter unless told) with the passcode's derived key.
    public init(port: Int, name: String, key: [UInt8], role: Role = .presenter, tls: CertificateFingerprint? = nil) throws {
        socket = try RawSocket(port: port, tls: tls)
        var hello: Hello?
        while hello == nil {
            for f in try frames(timeout: 15) { if case .hello(let h) = try Message.decode(f, sentBy: .server) { hello = h } }
        }
        let proof = RegisterProof.compute(key: key, challenge: hello!.challenge, role: role, name: name, resumeToken: nil)
        socket.send(Message.register(RegisterRequest(role: role, proof: proof, resumeToken: nil, name: name)).encode(tag: 1, deviceID: 0xFF))
        var registered = false
        while !registered {
            for f in try frames(timeout: 15) where f.header.tag == 1 {
                let m = try Message.decode(f, sentBy: .server)
                guard case .registerOK(let ok) = m else {
                    throw Fixtures.ToolError(description: "register failed: \(m.error?.message ?? "\(m)")")
                }
                id = ok.deviceID   // a viewer's stays 0xFF
                registered = true
            }
        }
    }

    private func frames(timeout: Double) throws -> [WireFrame] {
        guard let bytes = socket.receive(timeout: timeout) else { throw Fixtures.ToolError(description: "no answer in \(timeout) s") }
        guard !bytes.isEmpty else { throw Fixtures.ToolError(description: "the service closed the connection") }
        decoder.feed(bytes)
        var out: [WireFrame] = []
        while let f = try decoder.next() { out.append(f) }
        return out
    }

    /// Reads what has arrived (waiting up to `timeout` for something).
    public func pump(timeout: Double) {
        var wait = timeout
        while let bytes = socket.receive(timeout: wait), !bytes.isEmpty {
            wait = 0
            let now = MonotonicClock.now()
            decoder.feed(bytes)
            while let f = try? decoder.next() {
                if f.header.command == Command.state.rawValue { statesSeen += 1; lastStateAt = now }
                if f.header.command == Command.ping.rawValue {
                    var pong = f.header
                    pong.command = Command.pong.rawValue
                    pong.deviceID = id
                    socket.send(pong.encode() + f.body)
                }
            }
        }
    }

    public func close() { socket.close() }
}
