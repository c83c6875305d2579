import LecternProtocol

/// Live sharing's counts for `/metrics` (docs/config.md): what `ShareWorker` has counted
/// since the service started, read on the room's loop at a scrape.
struct ShareCounts: Sendable, Equatable {
    /// Shares started (each share-begin that made a new share).
    var started = 0
    /// Pictures decoded and media frames dropped, every share together.
    var decoded = 0
    var dropped = 0
    /// Pictures drawn for the wall so far by each share now, by its sharer.
    var pictures: [DeviceID: Int] = [:]
}

/// Turns successive `ShareCounts` into counter increments and each pane's frame rate:
/// pictures drawn between two scrapes over the time between them. Pure (the time is given).
struct ShareRates {
    private var last: ShareCounts?
    private var lastTime = 0.0

    /// What the counters grow by, and the frames a second of each share (by device) since
    /// the last reading (0 for a share seen for the first time).
    mutating func reading(_ c: ShareCounts, now: Double) -> (started: Int, decoded: Int, dropped: Int, fps: [DeviceID: Double]) {
        let before = last ?? ShareCounts()
        let seconds = now - lastTime
        var fps: [DeviceID: Double] = [:]
        for (d, n) in c.pictures {
            guard last != nil, seconds > 0, let m = before.pictures[d], n >= m else {
                fps[d] = 0
                continue
            }
            fps[d] = Double(n - m) / seconds
        }
        last = c
        lastTime = now
        return (max(0, c.started - before.started), max(0, c.decoded - before.decoded), max(0, c.dropped - before.dropped), fps)
    }
}
