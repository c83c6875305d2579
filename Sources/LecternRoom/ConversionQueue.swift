import LecternModel
import LecternProtocol

/// The room's conversions of uploads to PDF (docs/protocol.md §30): at most `slots`
/// converting at once, the others waiting in the order they were stored (at most
/// `maxWaiting`), each with a wall-clock budget from the moment it starts. Pure: no I/O, no
/// threads, no clock of its own — the room hands it what happened with the time and
/// carries out the actions it returns (the shell converts, and stops a conversion when told).
public struct ConversionQueue: Equatable, Sendable {
    public struct Limits: Equatable, Sendable {
        /// Conversions running at once (1 or 2 on a small board).
        public var slots: Int
        /// Conversions waiting besides those (more are refused with `conversionQueueFull`).
        public var maxWaiting: Int
        /// Wall-clock seconds one conversion may take, from its start.
        public var budget: Double
        public init(slots: Int = 1, maxWaiting: Int = 8, budget: Double = 60) {
            self.slots = max(1, slots)
            self.maxWaiting = max(0, maxWaiting)
            self.budget = max(1, budget)
        }
    }

    /// An upload-finish waiting for a conversion's end (answered upload-stored then), and
    /// the tag of its upload-begin, which the conversion's progress carries (§30.3).
    public struct Waiter: Equatable, Sendable {
        public var connection: ConnectionID
        public var tag: UInt16
        public var beginTag: UInt16
        public init(connection: ConnectionID, tag: UInt16, beginTag: UInt16) {
            self.connection = connection
            self.tag = tag
            self.beginTag = beginTag
        }
    }

    /// Why a conversion is stopped before its end.
    public enum StopReason: Equatable, Sendable {
        case timedOut(seconds: Int)
        /// Cancelled: by its uploader, the moderator, the meeting's end (the words for people).
        case cancelled(String)
    }

    public struct Job: Equatable, Sendable {
        public var entry: ContentEntry
        public var format: String
        public var uploader: DeviceID?
        public var waiters: [Waiter] = []
        /// When it started converting (nil: waiting).
        public var startedAt: Double?
        public var done = 0
        public var total = 0
        /// Stopped by the room: the shell was told, its outcome is on its way.
        public var stopping: StopReason?
        /// Its first page, ready while the rest converts (§30.8): the deck of that one page
        /// (`growing`), which may be presented; nil until then.
        public var early: ContentEntry?
        public var content: ContentID { entry.id }
    }

    /// What the room does next.
    public enum Action: Equatable, Sendable {
        /// Start converting this upload (its original is stored).
        case start(ContentEntry, format: String)
        /// Stop this conversion (kill its converter); its outcome still comes back.
        case stop(ContentID)
    }

    public var limits: Limits
    /// Running first (in the order started), then waiting (in the order stored).
    public private(set) var jobs: [Job] = []

    public init(limits: Limits = Limits()) { self.limits = limits }

    public subscript(_ content: ContentID) -> Job? { jobs.first { $0.content == content } }
    public var running: [Job] { jobs.filter { $0.startedAt != nil } }
    public var isEmpty: Bool { jobs.isEmpty }

    /// Conversions ahead of `content` (0 when it runs or is next).
    public func ahead(of content: ContentID) -> Int {
        guard let i = jobs.firstIndex(where: { $0.content == content }), jobs[i].startedAt == nil else { return 0 }
        return jobs[..<i].filter { $0.startedAt == nil }.count
    }

    /// A stored upload to convert. Throws `conversionQueueFull` when as many wait already.
    /// The same file added again (another uploader) only gains a waiter.
    public mutating func add(_ entry: ContentEntry, format: String, uploader: DeviceID?, waiter: Waiter?, now: Double) throws -> [Action] {
        if let i = jobs.firstIndex(where: { $0.content == entry.id }) {
            if let waiter { jobs[i].waiters.append(waiter) }
            return []
        }
        let waiting = jobs.count - running.count
        if waiting >= limits.maxWaiting && running.count >= limits.slots {
            throw LecternError.conversionQueueFull(limit: limits.maxWaiting)
        }
        jobs.append(Job(entry: entry, format: format, uploader: uploader, waiters: waiter.map { [$0] } ?? []))
        return startFree(now: now)
    }

    /// Another request waits for a conversion already in the queue.
    public mutating func wait(_ waiter: Waiter, for content: ContentID) {
        guard let i = jobs.firstIndex(where: { $0.content == content }) else { return }
        jobs[i].waiters.append(waiter)
    }

    /// The converter's progress: `done` of `total` pages (0: not known).
    public mutating func progressed(_ content: ContentID, done: Int, total: Int) {
        guard let i = jobs.firstIndex(where: { $0.content == content }), jobs[i].startedAt != nil else { return }
        jobs[i].done = max(jobs[i].early?.pages ?? 0, done)
        jobs[i].total = max(0, total)
    }

    /// The first page of a running conversion is ready (§30.8): `entry` is the deck of that
    /// one page, kept (growing) until the whole deck takes its place. False when nothing
    /// runs with that id, or it is being stopped (the page is not shown then).
    public mutating func firstPage(_ content: ContentID, _ entry: ContentEntry, pagesInAll: Int) -> Bool {
        guard let i = jobs.firstIndex(where: { $0.content == content }), jobs[i].startedAt != nil, jobs[i].stopping == nil, jobs[i].early == nil
        else { return false }
        var early = entry
        early.growing = true
        early.awaitsConversion = false
        jobs[i].early = early
        jobs[i].done = max(jobs[i].done, early.pages)
        if pagesInAll > 0 { jobs[i].total = pagesInAll }
        return true
    }

    /// The notes of a deck shown by its first page changed (typed by its presenter): kept
    /// with it, and carried over to the whole deck.
    public mutating func setEarlyNotes(_ notes: DeckNotes, for content: ContentID) {
        guard let i = jobs.firstIndex(where: { $0.content == content }), var early = jobs[i].early else { return }
        var deck = early.deck
        deck.notes = notes
        early.console = deck
        jobs[i].early = early
    }

    /// The conversion ended (converted, refused, or stopped): it leaves the queue, and the
    /// next waiting one starts. Returns the job as it was and what to do next.
    public mutating func finished(_ content: ContentID, now: Double) -> (job: Job?, actions: [Action]) {
        guard let i = jobs.firstIndex(where: { $0.content == content }) else { return (nil, []) }
        let job = jobs.remove(at: i)
        return (job, startFree(now: now))
    }

    /// Stops a conversion for `reason`: a waiting one leaves the queue at once (returned);
    /// a running one is stopped by the shell, whose outcome ends it (`finished`).
    public mutating func stop(_ content: ContentID, _ reason: StopReason, now: Double) -> (removed: Job?, actions: [Action]) {
        guard let i = jobs.firstIndex(where: { $0.content == content }) else { return (nil, []) }
        if jobs[i].startedAt == nil {
            let job = jobs.remove(at: i)
            return (job, startFree(now: now))
        }
        guard jobs[i].stopping == nil else { return (nil, []) }
        jobs[i].stopping = reason
        return (nil, [.stop(content)])
    }

    /// Conversions past their budget are stopped.
    public mutating func expire(now: Double) -> [Action] {
        var actions: [Action] = []
        for i in jobs.indices {
            guard let t = jobs[i].startedAt, jobs[i].stopping == nil, now - t >= limits.budget else { continue }
            jobs[i].stopping = .timedOut(seconds: Int(limits.budget.rounded()))
            actions.append(.stop(jobs[i].content))
        }
        return actions
    }

    /// When the next running conversion runs out of its budget (nil: none runs).
    public var nextDeadline: Double? {
        jobs.compactMap { j in j.stopping == nil ? j.startedAt.map { $0 + limits.budget } : nil }.min()
    }

    /// A connection is gone: it waits for nothing any more.
    public mutating func forget(_ connection: ConnectionID) {
        for i in jobs.indices { jobs[i].waiters.removeAll { $0.connection == connection } }
    }

    /// What conversion-progress says of `content` now.
    public func progress(_ content: ContentID, now: Double) -> ConversionProgress? {
        guard let j = self[content] else { return nil }
        return ConversionProgress(
            content: content, stage: j.startedAt == nil ? .queued : j.early != nil ? .firstPage : .converting, ahead: UInt8(clamping: ahead(of: content)),
            done: UInt32(clamping: j.done), total: UInt32(clamping: j.total), elapsedMs: Self.ms(j.startedAt.map { now - $0 } ?? 0),
            budgetMs: Self.ms(limits.budget), format: j.format)
    }

    /// The state's `conversions` (§30.4).
    public func snapshot(now: Double) -> [ConversionSnapshot] {
        jobs.map { j in
            ConversionSnapshot(
                id: j.content, name: j.entry.name, format: j.format, stage: j.startedAt == nil ? .queued : .converting, uploader: j.uploader,
                done: UInt32(clamping: j.done), total: UInt32(clamping: j.total), elapsedMs: Self.ms(j.startedAt.map { now - $0 } ?? 0),
                budgetMs: Self.ms(limits.budget), ready: UInt32(clamping: j.early?.pages ?? 0))
        }
    }

    private mutating func startFree(now: Double) -> [Action] {
        var actions: [Action] = []
        while running.count < limits.slots, let i = jobs.firstIndex(where: { $0.startedAt == nil }) {
            // Running jobs stay first: the one starting moves behind those already running.
            var job = jobs.remove(at: i)
            job.startedAt = now
            jobs.insert(job, at: running.count)
            actions.append(.start(job.entry, format: job.format))
        }
        return actions
    }

    private static func ms(_ seconds: Double) -> UInt32 { UInt32(clamping: Int((max(0, seconds) * 1000).rounded())) }
}
