import LecternModel

/// What a clip source's producer and the display loop share, behind one lock held only for
/// the hand-over: the queue of frames scaled to the pane, the pacing, the pane's size, and
/// what the display loop took (so the producer can start the sound with it and report the
/// position). A plain value: `ClipSource` keeps it in a `Mutex`.
struct ClipHandOver {
    struct Queued {
        let frame: Frame
        /// Timeline time (clip time plus earlier loop passes), for the pacing.
        let time: Double
        let clipTime: Double
        let duration: Double
        /// The frame sought to while paused: shown once although paused.
        let still: Bool
        /// The sound starts (from `clipTime`) when this frame is taken.
        let startsSound: Bool
    }

    var queue: [Queued] = []
    var pacing = ClipPacing()
    var width: Int
    var height: Int
    /// The most frames ever queued at once.
    var highWater = 0
    /// Clip time of the frame last taken (the position).
    var position: Double?
    /// Timeline minus clip time of the frame last taken (where the loop is, for the sound).
    var takenOffset = 0.0
    /// A frame that starts the sound was taken: the producer plays from this clip time.
    var soundFrom: Double?
    /// The producer waits for room in the queue (or for a take): wake it on the next take.
    var producerWaiting = false

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    mutating func push(_ q: Queued) {
        queue.append(q)
        highWater = max(highWater, queue.count)
    }

    /// The display loop's take at a refresh; `paused`: only a still is shown. The second value
    /// says whether to wake the producer (it waits for a take: room in the queue, or the
    /// refresh at which the clip is over).
    mutating func take(refresh: Double, period: Double, paused: Bool) -> (Frame?, wake: Bool) {
        if paused {
            pacing.reanchor()
            guard let first = queue.first, first.still else { return (nil, wakeProducer()) }
            queue.removeFirst()
            position = first.clipTime
            takenOffset = first.time - first.clipTime
            return (first.frame, wakeProducer())
        }
        guard case .show(let i) = pacing.take(queued: queue.map(\.time), refresh: refresh, period: period) else {
            return (nil, wakeProducer())
        }
        let q = queue[i]
        // A dropped frame that would have started the sound passes that on.
        let starts = queue[0...i].contains { $0.startsSound }
        queue.removeFirst(i + 1)
        position = q.clipTime
        takenOffset = q.time - q.clipTime
        if starts { soundFrom = q.clipTime }
        return (q.frame, wakeProducer() || starts)
    }

    private mutating func wakeProducer() -> Bool {
        defer { producerWaiting = false }
        return producerWaiting
    }
}
