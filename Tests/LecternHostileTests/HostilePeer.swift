import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternTestSupport
import XCTest

/// Peers of the protocol port that send what they like and read only if they choose to,
/// and the descriptors they cost (the service runs in this process).
extension Hostile {
    /// The presenter's key, as a client derives it from hello.
    static func presenterKey(_ h: ServiceHarness) throws -> [UInt8] {
        let c = try h.connect()
        defer { c.close() }
        let p = try XCTUnwrap(c.hello.presenter)
        return PasscodeHash.deriveKey(passcode: ServiceHarness.presenterPass, salt: p.salt, rounds: p.rounds)
    }

    /// `count` copies of a client frame, as one block of bytes.
    static func frames(_ m: Message, count: Int, device: UInt8 = 0xFF) -> [UInt8] {
        let one = m.encode(tag: 9, deviceID: device)
        var out: [UInt8] = []
        out.reserveCapacity(one.count * count)
        for _ in 0..<count { out += one }
        return out
    }

    /// Reads from `socket` until the service closes it (true) or `timeout` passes (false).
    static func closedByService(_ socket: RawSocket, within timeout: Double) -> Bool {
        let deadline = MonotonicClock.now() + timeout
        while MonotonicClock.now() < deadline {
            guard let bytes = socket.receive(timeout: deadline - MonotonicClock.now()) else { return false }
            if bytes.isEmpty { return true }
        }
        return false
    }
}
