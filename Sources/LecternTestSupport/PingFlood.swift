import Foundation
import LecternModel
import LecternSystem
import LecternProtocol

/// A peer without a passcode that sends pings as fast as the service takes them and reads
/// its pongs (so it is never cut off for not reading), until stopped or `seconds` pass.
///
/// Sendable unchecked, and why that holds: its state is `let`s; `socket` (a `RawSocket`,
/// not Sendable) is used by one thread that only receives and one that only sends, which
/// RawSocket allows (its writes under `writeLock`, TLS under the session's own lock);
/// `stop` closes it once the shutdown ended both (if one is still stuck 10 s later, it
/// returns false and the test fails).
public final class PingFlood: @unchecked Sendable {
    private let socket: RawSocket
    private let stopped = Shared(false)
    private let done = DispatchGroup()

    /// Over TLS pinned to `tls` (as the service ships), plain without.
    public init(port: Int, seconds: Double = .infinity, tls: CertificateFingerprint? = nil) throws {
        socket = try RawSocket(port: port, tls: tls)
        let stopped = self.stopped
        // The threads reach the socket through `self`, whose Sendable conformance above says
        // why one receiving and one sending thread may share it.
        done.enter()
        DispatchQueue.global().async { [self] in
            while !stopped.value { _ = socket.receive(timeout: 0.05) }
            done.leave()
        }
        done.enter()
        DispatchQueue.global().async { [self] in
            var block: [UInt8] = []
            for _ in 0..<20_000 { block += Message.ping(nonce: 7).encode(tag: 1, deviceID: ProtocolLimits.unregisteredID) }
            let deadline = MonotonicClock.now() + seconds
            while !stopped.value && MonotonicClock.now() < deadline && socket.send(block) {}
            done.leave()
        }
    }

    /// Stops both directions (a send blocked on a full socket returns) and closes; true
    /// once both threads ended.
    @discardableResult
    public func stop() -> Bool {
        stopped.value = true
        socket.shutdown()
        let ended = done.wait(timeout: .now() + 10) == .success
        socket.close()
        return ended
    }
}
