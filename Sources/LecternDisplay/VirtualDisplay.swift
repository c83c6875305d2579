import Foundation
import LecternModel
import LecternSystem
import Synchronization

/// An output that keeps its frames in memory: the default when the machine has no usable
/// `/dev/dri/card*`, and what tests look at. Double-buffered, and paced like a real display:
/// a present becomes visible at the next refresh boundary of its mode.
public final class VirtualDisplay: Output, Sendable {
    public let mode: DisplayMode
    public var name: String { "virtual \(mode)" }
    private let epoch = MonotonicClock.now()
    /// The buffer being drawn, held for a whole present: one present at a time.
    private let back: Mutex<Frame>
    /// What is on screen, the counters and the simulated cable.
    private struct Screen {
        var front: Frame
        var presents = 0
        var lastVBlank = 0.0
        /// The simulated cable (`setConnected`), and what the last `reprobe` saw.
        var cable = true
        var probed = true
    }
    private let screen: Mutex<Screen>

    public init(mode: DisplayMode = .fullHD) {
        self.mode = mode
        screen = Mutex(Screen(front: Frame(width: mode.width, height: mode.height)))
        back = Mutex(Frame(width: mode.width, height: mode.height))
    }

    public func present(draw: (Frame) throws -> Void) throws {
        try back.withLock { (back: inout Frame) throws -> Void in
            guard isConnected else { return }   // no display: keep serving, draw nothing (as KMS)
            try draw(back)
            // Wait for the next refresh boundary, as a flip would.
            let period = mode.frameInterval
            let now = MonotonicClock.now()
            let k = ((now - epoch) / period).rounded(.down) + 1
            let vblank = epoch + k * period
            MonotonicClock.sleep(until: vblank)
            screen.withLock { s in
                swap(&s.front, &back)
                s.presents += 1
                s.lastVBlank = vblank
            }
        }
    }

    /// Pulls (false) or plugs back (true) the simulated cable, as a test's hand on a
    /// projector's: presents are dropped while it is out, and the next `reprobe` after it is
    /// back says the display appeared. Whoever pulls it then plays the kernel's part and
    /// tells the service (`Service.displayChanged()`).
    public func setConnected(_ on: Bool) { screen.withLock { $0.cable = on } }

    public var isConnected: Bool { screen.withLock { $0.cable } }

    public func reprobe() throws -> Bool {
        screen.withLock { s in
            defer { s.probed = s.cable }
            return s.cable && !s.probed
        }
    }

    public func readBack() -> Frame { screen.withLock { $0.front.clone() } }

    /// Reads the frame on the output in place with the present count and the refresh it
    /// became visible at (a bench watching for a picture, without copying 8 MB a refresh).
    public func peek<R>(_ body: (Frame, _ presents: Int, _ vblank: Double) -> R) -> R {
        screen.withLock { body($0.front, $0.presents, $0.lastVBlank) }
    }

    public var presentCount: Int { screen.withLock { $0.presents } }

    /// The monotonic time of the refresh at which the last present became visible.
    public var lastPresentTime: Double { screen.withLock { $0.lastVBlank } }
}
