import Foundation
import LecternModel
import LecternSystem
import LecternProtocol
import LecternRoom
import Metrics
import Prometheus
import Synchronization

/// What an admin of many rooms watches, as Prometheus metrics (`/metrics` on
/// `metrics_address`, MetricsServer.swift; every name in docs/config.md). swift-metrics
/// handles on this service's own Prometheus registry (not the process-wide
/// `MetricsSystem`: a test process runs many services). Counters are fed by the room's
/// shell (`observe`, on the room's loop); gauges are read at each scrape (`Reading`).
final class ServiceMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    /// The tallies behind the counters: fed on the room's loop (`observe`), the share
    /// rates read at each scrape.
    private struct Tallies {
        var turns = PageTurnTimer()
        var clips = ClipFrameTally()
        var shareRates = ShareRates()
    }
    private let tallies = Mutex(Tallies())
    private let sharesStarted: Metrics.Counter
    private let shareFramesDecoded: Metrics.Counter
    private let shareFramesDropped: Metrics.Counter
    private let errors = Mutex<[UInt16: Metrics.Counter]>([:])

    let pageTurns: Metrics.Counter
    let pageTurnLatency: Metrics.Timer
    let framesPresented: Metrics.Counter
    let framesDropped: Metrics.Counter
    let uploads: Metrics.Counter
    let uploadBytes: Metrics.Counter
    let throttled: Metrics.Counter

    /// The page-turn histogram's buckets (seconds): from a cached page (a few ms) to a
    /// slow render near the budget.
    static let turnBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// What a scrape reads from the service at that moment.
    struct Reading {
        var outputConnected: Bool
        var outputVirtual: Bool
        var mode: DisplayMode
        var snapshot: Snapshot
        var storageUsedBytes: Int64
        var storageQuotaBytes: Int64
        var shares = ShareCounts()
    }

    /// `starts`: how many times the service started with this data directory (this one
    /// included); `startTime`: this start, Unix seconds.
    init(starts: Int, startTime: Double) {
        var f = PrometheusMetricsFactory(registry: registry)
        f.durationHistogramBuckets["lectern_page_turn_seconds"] = Self.turnBuckets.map { Duration.nanoseconds(Int64($0 * 1e9)) }
        factory = f
        pageTurns = Metrics.Counter(label: "lectern_page_turns_total", factory: f)
        pageTurnLatency = Metrics.Timer(label: "lectern_page_turn_seconds", factory: f)
        framesPresented = Metrics.Counter(label: "lectern_clip_frames_presented_total", factory: f)
        framesDropped = Metrics.Counter(label: "lectern_clip_frames_dropped_total", factory: f)
        uploads = Metrics.Counter(label: "lectern_uploads_total", factory: f)
        uploadBytes = Metrics.Counter(label: "lectern_upload_bytes_total", factory: f)
        throttled = Metrics.Counter(label: "lectern_throttled_attempts_total", factory: f)
        sharesStarted = Metrics.Counter(label: "lectern_shares_total", factory: f)
        shareFramesDecoded = Metrics.Counter(label: "lectern_share_frames_decoded_total", factory: f)
        shareFramesDropped = Metrics.Counter(label: "lectern_share_frames_dropped_total", factory: f)
        // Present from the first scrape (0), so rate() and alerts see them start.
        for c in [pageTurns, framesPresented, framesDropped, uploads, uploadBytes, throttled, sharesStarted, shareFramesDecoded, shareFramesDropped] {
            c.increment(by: 0)
        }
        Metrics.Counter(label: "lectern_service_starts_total", factory: f).increment(by: Int64(starts))
        Metrics.Gauge(label: "lectern_service_start_time_seconds", factory: f).record(startTime)
    }

    /// Counts a start in `data_dir/starts` (a number, kept across restarts and reboots, so
    /// `increase(lectern_service_starts_total[15m])` sees a restart loop) and returns the
    /// new count. A file that can't be read or written counts from 1 (logged by nobody:
    /// the metric then shows a reset, which Prometheus' increase() also reads as a start).
    static func recordStart(dataDir: String) -> Int {
        let path = (dataDir as NSString).appendingPathComponent("starts")
        let before = (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        let now = before < Int(Int32.max) && before >= 0 ? before + 1 : 1
        try? "\(now)\n".write(toFile: path, atomically: true, encoding: .utf8)
        return now
    }

    // MARK: fed by the room's shell

    func observe(_ event: RoomEvent, now: Double) {
        switch event {
        case .shown(let op, let error, _):
            if let latency = tallies.withLock({ $0.turns.shown(op: op, failed: error != nil, now: now) }) {
                pageTurns.increment()
                pageTurnLatency.recordNanoseconds(Int64(latency * 1e9))
            }
        case .clipProgressed(let serial, let p): countFrames(serial, p)
        case .clipEnded(let serial, let e): countFrames(serial, e.progress)
        case .uploadFinished(_, _, _, _, .success(let entry)):
            uploads.increment()
            uploadBytes.increment(by: Int64(clamping: entry.size))
        default: return
        }
    }

    func observe(_ effect: RoomEffect, now: Double) {
        switch effect {
        case .showWall(let op, let plan): tallies.withLock { $0.turns.showing(op: op, plan, now: now) }
        case .send(_, let bytes):
            guard let code = Self.errorCode(inFrame: bytes) else { return }
            counter(forError: code).increment()
            if code == ErrorCode.tooManyAttempts.rawValue { throttled.increment() }
        default: return
        }
    }

    private func countFrames(_ serial: Int, _ p: ClipProgress) {
        let d = tallies.withLock { $0.clips.report(serial: serial, presented: p.presented, dropped: p.dropped) }
        if d.presented > 0 { framesPresented.increment(by: Int64(d.presented)) }
        if d.dropped > 0 { framesDropped.increment(by: Int64(d.dropped)) }
    }

    /// One series per error code the service sent (a finite table: bounded).
    private func counter(forError code: UInt16) -> Metrics.Counter {
        let factory = self.factory
        return errors.withLock { errors in
            if let c = errors[code] { return c }
            let e = ErrorCode(rawValue: code)
            let c = Metrics.Counter(label: "lectern_errors_total", dimensions: [("code", e.description), ("name", e.name)], factory: factory)
            errors[code] = c
            return c
        }
    }

    /// The error code of a frame the service sends, when it is an error, register-failed or
    /// control-failed frame (its body starts with the code); nil for any other frame.
    static func errorCode(inFrame bytes: [UInt8]) -> UInt16? {
        guard let h = FrameHeader.peek(bytes), bytes.count >= FrameHeader.size + 2 else { return nil }
        let failures: Set<UInt8> = [Command.error.rawValue, Command.registerFailed.rawValue, Command.controlFailed.rawValue]
        guard failures.contains(h.command) else { return nil }
        return UInt16(bytes[FrameHeader.size]) << 8 | UInt16(bytes[FrameHeader.size + 1])
    }

    // MARK: a scrape

    /// The text exposition (format 0.0.4) with the gauges set from `r`.
    func exposition(_ r: Reading) -> [UInt8] {
        func gauge(_ name: String, _ v: Double, _ dims: [(String, String)] = []) {
            Metrics.Gauge(label: name, dimensions: dims, factory: factory).record(v)
        }
        gauge("lectern_output_connected", r.outputConnected ? 1 : 0)
        gauge("lectern_output_virtual", r.outputVirtual ? 1 : 0)
        gauge("lectern_output_losses", Double(r.snapshot.output.losses))
        gauge("lectern_output_width_pixels", Double(r.mode.width))
        gauge("lectern_output_height_pixels", Double(r.mode.height))
        gauge("lectern_output_refresh_hertz", Double(r.mode.refresh))
        let devices = r.snapshot.devices.filter(\.connected)
        for role in Role.allCases {
            gauge("lectern_devices", Double(devices.filter { $0.role == role }.count), [("role", role.description)])
        }
        let f = r.snapshot.floor
        gauge("lectern_floor_moderated", r.snapshot.floorMode == .moderated ? 1 : 0)
        gauge("lectern_floor_held", f.holder == nil ? 0 : 1)
        gauge("lectern_floor_queue_length", Double(f.queue.count))
        gauge("lectern_floor_do_not_disturb", f.doNotDisturb ? 1 : 0)
        gauge("lectern_storage_used_bytes", Double(r.storageUsedBytes))
        gauge("lectern_storage_quota_bytes", Double(r.storageQuotaBytes))
        // Live sharing (docs/protocol.md §29): shares on the wall and waiting, and each
        // pane's share frame rate since the last scrape (0 where no share is).
        let shares = r.snapshot.shares ?? []
        gauge("lectern_shares_live", Double(shares.filter { $0.status != .waiting }.count))
        gauge("lectern_shares_waiting", Double(shares.filter { $0.status == .waiting }.count))
        let now = MonotonicClock.now()
        let s = tallies.withLock { $0.shareRates.reading(r.shares, now: now) }
        sharesStarted.increment(by: Int64(s.started))
        shareFramesDecoded.increment(by: Int64(s.decoded))
        shareFramesDropped.increment(by: Int64(s.dropped))
        for pane in 0..<WallLayout.quad.paneCount {
            let fps = shares.first { $0.pane == pane }.flatMap { s.fps[$0.device] } ?? 0
            gauge("lectern_share_frames_per_second", (fps * 10).rounded() / 10, [("pane", String(pane))])
        }
        var out: [UInt8] = []
        registry.emit(into: &out)
        return Self.withHelp(out)
    }

    /// What each metric means, for the exposition's `# HELP` lines (and docs/config.md).
    static let help: [String: String] = [
        "lectern_output_connected": "1 when a display is connected to the output (KMS), 0 when it is unplugged; the virtual display is always 1.",
        "lectern_output_losses": "Times the display was lost from the output since the service started.",
        "lectern_output_virtual": "1 when the output is the in-memory virtual display (no projector), 0 for KMS.",
        "lectern_output_width_pixels": "Width of the output's mode.",
        "lectern_output_height_pixels": "Height of the output's mode.",
        "lectern_output_refresh_hertz": "Refresh rate of the output's mode.",
        "lectern_devices": "Devices connected and registered, by role.",
        "lectern_floor_moderated": "1 when the floor is moderated, 0 when open.",
        "lectern_floor_held": "1 while someone holds the floor.",
        "lectern_floor_queue_length": "Devices waiting for the floor.",
        "lectern_floor_do_not_disturb": "1 while the moderator's do-not-disturb is on.",
        "lectern_storage_used_bytes": "Bytes of uploads kept in the store.",
        "lectern_storage_quota_bytes": "The store's quota (disk_quota_mb).",
        "lectern_service_starts_total": "Times the service started with this data directory (kept across restarts).",
        "lectern_service_start_time_seconds": "When this run of the service started, Unix time.",
        "lectern_page_turns_total": "Pages put on the output (a show of a page that reached the output).",
        "lectern_page_turn_seconds": "From the room's decision to show a page to the page on the output.",
        "lectern_clip_frames_presented_total": "Clip frames presented on the output.",
        "lectern_clip_frames_dropped_total": "Clip frames dropped (late for their refresh).",
        "lectern_uploads_total": "Uploads stored.",
        "lectern_upload_bytes_total": "Bytes of uploads stored.",
        "lectern_errors_total": "Errors sent to clients, by code and name (docs/protocol.md §15).",
        "lectern_throttled_attempts_total": "Join attempts refused by the passcode throttle (tooManyAttempts).",
        "lectern_shares_total": "Live shares started (docs/protocol.md §29).",
        "lectern_shares_live": "Live shares on the wall now (live, paused or away).",
        "lectern_shares_waiting": "Live shares waiting for the moderator's approval now.",
        "lectern_share_frames_decoded_total": "Pictures of live shares decoded, every share together.",
        "lectern_share_frames_dropped_total": "Media frames of live shares dropped (late, over the queue, or waiting for a key frame).",
        "lectern_share_frames_per_second": "Pictures a second the live share in each pane showed since the last scrape (0: no share there).",
    ]

    /// Adds a `# HELP` line before each `# TYPE` line that has none (the registry, fed
    /// through swift-metrics, writes none).
    static func withHelp(_ exposition: [UInt8]) -> [UInt8] {
        var lines: [String] = []
        for line in String(decoding: exposition, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE ") {
                let name = String(line.dropFirst("# TYPE ".count).split(separator: " ").first ?? "")
                if !(lines.last?.hasPrefix("# HELP \(name) ") ?? false) { lines.append("# HELP \(name) \(help[name] ?? name)") }
            }
            lines.append(String(line))
        }
        return Array(lines.joined(separator: "\n").utf8)
    }
}
