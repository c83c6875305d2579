import Foundation
import LecternCore

/// An output that keeps its frames in memory: the default when the machine has no usable
/// `/dev/dri/card*`, and what tests look at. Double-buffered, and paced like a real display:
/// a present becomes visible at the next refresh boundary of its mode.
public final class VirtualDisplay: Output, @unchecked Sendable {
    public let mode: DisplayMode
    public var name: String { "virtual \(mode)" }
    private var front: Frame
    private var back: Frame
    private let epoch = MonotonicClock.now()
    private let presentLock = NSLock()   // one present at a time
    private let frontLock = NSLock()   // the front buffer and counters
    private var presents = 0
    private var lastVBlank = 0.0
    /// The simulated cable (`setConnected`), and what the last `reprobe` saw.
    private var cable = true
    private var probed = true

    public init(mode: DisplayMode = .fullHD) {
        self.mode = mode
        front = Frame(width: mode.width, height: mode.height)
        back = Frame(width: mode.width, height: mode.height)
    }

    public func present(draw: (Frame) throws -> Void) throws {
        presentLock.lock(); defer { presentLock.unlock() }
        guard isConnected else { return }   // no display: keep serving, draw nothing (as KMS)
        try draw(back)
        // Wait for the next refresh boundary, as a flip would.
        let period = mode.frameInterval
        let now = MonotonicClock.now()
        let k = ((now - epoch) / period).rounded(.down) + 1
        let vblank = epoch + k * period
        MonotonicClock.sleep(until: vblank)
        frontLock.lock()
        swap(&front, &back)
        presents += 1
        lastVBlank = vblank
        frontLock.unlock()
    }

    /// Pulls (false) or plugs back (true) the simulated cable, as a test's hand on a
    /// projector's: presents are dropped while it is out, and the next `reprobe` after it is
    /// back says the display appeared. Whoever pulls it then plays the kernel's part and
    /// tells the service (`Service.displayChanged()`).
    public func setConnected(_ on: Bool) { frontLock.withLock { cable = on } }

    public var isConnected: Bool { frontLock.withLock { cable } }

    public func reprobe() throws -> Bool {
        frontLock.withLock {
            defer { probed = cable }
            return cable && !probed
        }
    }

    public func readBack() -> Frame {
        frontLock.lock(); defer { frontLock.unlock() }
        return front.clone()
    }

    /// Reads the frame on the output in place with the present count and the refresh it
    /// became visible at (a bench watching for a picture, without copying 8 MB a refresh).
    public func peek<R>(_ body: (Frame, _ presents: Int, _ vblank: Double) -> R) -> R {
        frontLock.lock(); defer { frontLock.unlock() }
        return body(front, presents, lastVBlank)
    }

    public var presentCount: Int {
        frontLock.lock(); defer { frontLock.unlock() }
        return presents
    }

    /// The monotonic time of the refresh at which the last present became visible.
    public var lastPresentTime: Double {
        frontLock.lock(); defer { frontLock.unlock() }
        return lastVBlank
    }
}
