import LecternModel
import LecternProtocol

/// Screen changes, one at a time, and the clip over the slide. A change is computed from
/// the committed screen when its turn comes, shown by the stage, and committed once shown;
/// the next waits until then. Data only: `RoomCore` drives it.
struct ScreenQueue: Equatable, Sendable {
    /// What a queued change does to the committed screen.
    enum Change: Equatable, Sendable {
        /// Show this page.
        case page(CommittedScreen)
        /// Apply a screen signal (next, prev, goto, blank, unblank).
        case signal(ControlSignal)
        /// Back to the idle screen.
        case idle
        /// Show this card over the screen, or take it off (nil) (§24).
        case card(WallCard?)
    }

    struct Op: Equatable, Sendable {
        let id: Int
        var change: Change
        let reply: ScreenReply?
        /// Set once the op runs: the screen it is showing.
        var target: CommittedScreen?
    }

    /// The clip playing over the slide, if any.
    struct Clip: Equatable, Sendable {
        let serial: Int
        let content: ContentSnapshot
        let duration: Double
        var loop: Bool
        var progress: ClipProgress
        /// Paused or playing as the last pause/resume asked: what the state shows from the
        /// moment the command is taken (the player's reports may lag behind it).
        var asked: ClipProgress.State?
    }

    /// A clip asked for and being opened.
    struct OpeningClip: Equatable, Sendable {
        let content: ContentSnapshot
        let loop: Bool
        /// Nil for a clip the room plays again after a restart.
        let reply: ScreenReply?
        /// Where it starts (seconds), and whether it starts paused (a restored clip).
        var start: Double = 0
        var paused = false
    }

    private(set) var committed = CommittedScreen.idle
    private var pending: [Op] = []
    private(set) var running: Op?
    /// The id the next op gets: one sequence over every pane's queue (`RoomCore.syncOpIDs`).
    var nextID = 1
    /// Set when a running change was abandoned: the stage may still have shown it, so the
    /// next change is shown even when it equals the committed screen.
    private(set) var outputUnsure = false
    var clip: Clip?
    /// Clips being opened, by play serial.
    var opening: [Int: OpeningClip] = [:]
    /// The serial of the clip asked for last here (serials are the room's, one sequence over
    /// every pane: `RoomCore.newClipSerial`); an older one opened meanwhile is not played.
    var clipSerial = 0

    mutating func restore(_ model: CommittedScreen) { committed = model }

    mutating func enqueue(_ change: Change, reply: ScreenReply?) {
        pending.append(Op(id: nextID, change: change, reply: reply))
        nextID += 1
    }

    /// The next op to run, if none is running.
    mutating func startNext() -> Op? {
        guard running == nil, !pending.isEmpty else { return nil }
        running = pending.removeFirst()
        return running
    }

    mutating func setTarget(_ target: CommittedScreen) { running?.target = target }

    /// The growing deck `id` now has all its `pages` (§30.8): what is on screen, what is
    /// being shown and the presents waiting say so. Nothing is shown again: the page is the
    /// same. Returns whether this screen shows (or is about to show) that deck.
    mutating func deckCompleted(_ id: ContentID, pages: Int) -> Bool {
        let before = committed
        committed = committed.completing(id, pages: pages)
        var touched = committed != before
        if let t = running?.target {
            running?.target = t.completing(id, pages: pages)
            touched = touched || running?.target != t
        }
        for i in pending.indices {
            if case .page(let m) = pending[i].change, m.content?.id == id {
                pending[i].change = .page(m.completing(id, pages: pages))
            }
        }
        return touched
    }

    /// The running op is over; `commit`: its target is on screen.
    mutating func finishRunning(commit: Bool) -> Op? {
        let op = running
        if commit, let t = op?.target { committed = t }
        running = nil
        return op
    }

    /// Drops the running change (the stage's report of it will be ignored) and every
    /// waiting one; returns them, oldest first.
    mutating func abandonAll() -> [Op] {
        let dropped = (running.map { [$0] } ?? []) + pending
        if running != nil { outputUnsure = true }
        running = nil
        pending = []
        return dropped
    }

    /// A change reached the output: it shows what is committed.
    mutating func outputKnown() { outputUnsure = false }

    /// The output shows something other than what is committed (a clip that was just taken
    /// off): the next change is shown even when it equals the committed screen.
    mutating func outputChanged() { outputUnsure = true }
}

/// Whom a screen change answers, and with what when it worked.
struct ScreenReply: Equatable, Sendable {
    let peer: ConnectionID
    let tag: UInt16
    let request: Command
    let ok: Message
}
