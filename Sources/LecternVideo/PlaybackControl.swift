import Dispatch
import Synchronization

/// The remote control of one clip source: other threads (the service's connections) call
/// pause/resume/seek/stop; the producer (`ClipProducer`) picks the commands up between
/// frames and while it waits. `status` can be read from any thread. One control per play:
/// a stop stays stopped.
///
/// The commands are kept under a lock held only to read or change them; a paused producer
/// waits on a bell every command rings (no condition variable, nothing held while waiting).
public final class PlaybackControl: Sendable {
    struct Commands {
        var wantPause = false
        var wantStop = false
        var seekTarget: Double?
        var loopOverride: Bool?
        var serial = 0
        var status = PlaybackStatus()
    }

    private let commands = Mutex(Commands())
    private let bell = DispatchSemaphore(value: 0)
    private let onChange: (@Sendable (PlaybackStatus) -> Void)?

    /// `onChange` is called (on the producer's thread) when the state changes, after a seek,
    /// and about twice a second while playing (the saved state follows it).
    public init(onChange: (@Sendable (PlaybackStatus) -> Void)? = nil) { self.onChange = onChange }

    public func pause() { command { $0.wantPause = true } }
    public func resume() { command { $0.wantPause = false } }
    /// Seconds from the start; lands on the frame nearest that time (works while paused:
    /// the frame is shown and playback stays paused).
    public func seek(to seconds: Double) { command { $0.seekTarget = seconds } }
    public func stop() { command { $0.wantStop = true } }
    /// Loop from now on, or end at the end (the play's `loop` until this is called).
    public func setLoop(_ on: Bool) { command { $0.loopOverride = on } }

    public var status: PlaybackStatus { commands.withLock { $0.status } }

    private func command(_ change: (inout Commands) -> Void) {
        commands.withLock {
            change(&$0)
            $0.serial += 1
        }
        bell.signal()
    }

    // MARK: the producer's side

    struct Pending { var stop: Bool; var seek: Double?; var pause: Bool; var serial: Int }

    func pending() -> Pending {
        commands.withLock { Pending(stop: $0.wantStop, seek: $0.seekTarget, pause: $0.wantPause, serial: $0.serial) }
    }

    func takeSeek() -> Double? {
        commands.withLock { c in
            let t = c.seekTarget
            c.seekTarget = nil
            return t
        }
    }

    var serial: Int { commands.withLock { $0.serial } }

    /// The loop setting asked for during the play, if any.
    var loopAsked: Bool? { commands.withLock { $0.loopOverride } }

    /// Waits while paused with nothing else asked (each command rings the bell; one rung
    /// while nobody waited only costs a look more).
    func waitWhilePaused() {
        while commands.withLock({ $0.wantPause && !$0.wantStop && $0.seekTarget == nil }) {
            bell.wait()
        }
    }

    func update(notify: Bool = false, _ change: (inout PlaybackStatus) -> Void) {
        let (before, now) = commands.withLock { c -> (PlaybackStatus, PlaybackStatus) in
            let before = c.status
            change(&c.status)
            return (before, c.status)
        }
        if notify || before.state != now.state, let onChange { onChange(now) }
    }
}
