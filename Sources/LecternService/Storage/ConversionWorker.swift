import Foundation
import LecternConvert
import LecternModel
import LecternSystem
import LecternPhotos
import LecternProtocol
import LecternRoom
import Logging
import Synchronization

/// The room's conversions carried out (docs/protocol.md §30): the thin shell of
/// `ConversionQueue`. Each conversion the room starts runs on a thread of its own with a
/// fresh work directory under `<data_dir>/convert/jobs/`; its progress comes back at most four
/// times a second, and its end once, as `RoomEvent`s. When the room stops one (its budget,
/// a cancel) the converter's stop fires. The decisions — how many at once, the queue, the
/// budget — are the room's.
final class ConversionWorker: Sendable {
    let store: ContentStore
    let converters: DeckConverters
    let limits: ConversionLimits
    let workRoot: String
    private let report: @Sendable (RoomEvent) -> Void
    private let running = Mutex<[ContentID: ConversionStop]>([:])
    private let logger = Logger(label: "lecternd.convert")

    init(store: ContentStore, converters: DeckConverters, limits: ConversionLimits, dataDir: String, report: @escaping @Sendable (RoomEvent) -> Void) {
        self.store = store
        self.converters = converters
        self.limits = limits
        self.report = report
        workRoot = URL(fileURLWithPath: dataDir).appendingPathComponent("convert/jobs").path
        // What a conversion left (the service stopped during it) goes; each starts afresh.
        try? FileManager.default.removeItem(atPath: workRoot)
        try? FileManager.default.createDirectory(atPath: workRoot, withIntermediateDirectories: true, attributes: ContentStore.ownerOnlyDirectory)
    }

    /// Converts the stored original of `entry`; reports progress and the end.
    func start(_ entry: ContentEntry, format: String) {
        let stop = ConversionStop()
        running.withLock { $0[entry.id] = stop }
        let thread = Thread { [self] in
            ThreadName.set("lectern.convert")   // the name the kernel shows (/proc, top -H)
            let result = convert(entry, format: format, stop: stop)
            running.withLock { _ = $0.removeValue(forKey: entry.id) }
            report(.conversionEnded(entry.id, result))
        }
        thread.name = "lectern.convert"
        thread.start()
    }

    /// The room stopped the conversion of `content`.
    func stop(_ content: ContentID) {
        running.withLock { $0[content] }?.stop()
    }

    /// The service stops: every conversion is stopped (its original stays, converted again
    /// at the next start), and warm converters are let go of.
    func shutdown() {
        for s in running.withLock({ Array($0.values) }) { s.stop() }
        converters.shutdown()
    }

    private func convert(_ entry: ContentEntry, format id: String, stop: ConversionStop) -> Result<ContentEntry, LecternError> {
        let hex = entry.id.hex
        let original = store.path(of: hex)
        guard let sniff = try? FileSniff(path: original, name: entry.name), let (converter, format) = converters.converter(for: id, file: sniff) else {
            return .failure(.conversionFailed(entry.name, "the appliance no longer recognises it as a \(id) file"))
        }
        if let why = converter.unavailable {
            logger.warning("can't convert \(entry.name): \(why)")
            return .failure(.conversionUnavailable(format.what))
        }
        let work = workRoot + "/" + hex
        try? FileManager.default.removeItem(atPath: work)
        do {
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true, attributes: ContentStore.ownerOnlyDirectory)
        } catch {
            return .failure(.storageFailed)
        }
        defer { try? FileManager.default.removeItem(atPath: work) }
        let output = work + "/deck.pdf"
        let report = self.report
        let started = MonotonicClock.now()
        let (store, logger, limits) = (self.store, self.logger, self.limits)
        // Page 1 alone, ahead of the whole (§30.8): checked in the bounded child like any
        // PDF, then the room may show it while the rest converts. One that can't be used is
        // let go of (the whole deck is waited for).
        let first = FirstPageRequest(path: work + "/first.pdf") { made in
            guard !stop.isStopped else { return }
            do {
                let item = try store.adoptFirstPage(id: hex, pdf: work + "/first.pdf", notes: made.notes, pagesInAll: made.pagesInAll, maxPages: limits.maxPages)
                var early = ContentEntry(item, notes: store.notes(of: hex))
                early.storedAt = entry.storedAt
                logger.info("\(entry.name): page 1 ready in \(String(format: "%.2f", MonotonicClock.now() - started)) s, the rest converting")
                report(.conversionFirstPage(entry.id, early, pagesInAll: made.pagesInAll))
            } catch {
                logger.warning("\(entry.name): page 1 alone can't be shown (\(error)); its whole PDF is waited for")
            }
        }
        let job = ConversionJob(input: original, output: output, workDirectory: work, name: entry.name, format: format, limits: limits, firstPage: first)
        let pacer = ProgressPacer()
        do {
            let made = try converter.convert(
                job,
                progress: { done, total in
                    if pacer.admit(now: MonotonicClock.now(), final: total > 0 && done >= total) {
                        report(.conversionProgressed(entry.id, done: done, total: total))
                    }
                }, stop: stop)
            let item = try store.adoptConverted(id: hex, pdf: output, notes: made.notes, maxPages: limits.maxPages)
            logger.info("converted \(entry.name) (\(format.id)) in \(String(format: "%.2f", MonotonicClock.now() - started)) s: \(item.pages) pages")
            var converted = ContentEntry(item, notes: store.notes(of: hex))
            converted.storedAt = entry.storedAt
            return .success(converted)
        } catch let f as ConversionFailure {
            return .failure(Self.error(f, name: entry.name, limits: limits))
        } catch is ContentStore.TooManyPages {
            return .failure(.conversionTooManyPages(entry.name, limit: limits.maxPages))
        } catch let e as ContentError {
            return .failure(.conversionFailed(entry.name, "the PDF it made can't be read (\(LecternError(mapping: e).message))"))
        } catch {
            return .failure(.conversionFailed(entry.name, "\(error)"))
        }
    }

    /// What people are told for a converter's failure.
    static func error(_ f: ConversionFailure, name: String, limits: ConversionLimits) -> LecternError {
        switch f {
        case .unreadable(let why): .conversionFailed(name, why)
        case .tooLarge(let limit): .conversionTooLarge(name, unpackedLimit: limit)
        case .tooManyPages(let limit): .conversionTooManyPages(name, limit: limit)
        case .outOfMemory(let mb): .conversionOutOfMemory(name, limitMB: mb)
        case .timedOut(let s): .conversionTimedOut(name, seconds: s)
        case .stopped: .conversionCancelled(name, "it was stopped")
        case .unavailable(let why): .conversionFailed(name, why)
        case .refused(let code, let detail, let message): LecternError(ErrorCode(rawValue: code), detail: detail, message: message)
        }
    }
}

/// At most four progress reports a second, and always the last.
final class ProgressPacer: Sendable {
    private let last = Mutex<Double>(-.infinity)
    func admit(now: Double, final: Bool) -> Bool {
        last.withLock { t in
            guard final || now - t >= 0.25 else { return false }
            t = now
            return true
        }
    }
}

extension ConvertSettings {
    /// The limits each conversion gets.
    var limits: ConversionLimits {
        ConversionLimits(
            memoryMB: memoryMB, maxPages: maxPages, maxUnpackedBytes: UInt64(maxUnpackedMB) * 1_000_000, cpuSeconds: timeoutSeconds * 2 + 30,
            budgetSeconds: timeoutSeconds)
    }
}

extension ConvertSettings {
    /// What decoding photos and images may cost (docs/protocol.md §30.9).
    var photoLimits: PhotoLimits {
        var l = PhotoLimits()
        l.maxMegapixels = imageMaxMegapixels
        l.memoryMB = imageMemoryMB
        l.cpuSeconds = imageCPUSeconds
        l.maxImages = imageMaxCount
        return l
    }
}

extension Service {
    /// The converters of the `[convert]` section (docs/protocol.md §30.1), in the order
    /// they are asked what a file is.
    static func converters(_ config: Config) -> DeckConverters {
        let s = config.convert
        let root = URL(fileURLWithPath: config.dataDir).appendingPathComponent("convert").path
        let content = URL(fileURLWithPath: config.dataDir).appendingPathComponent("content").path
        return DeckConverters([
            OfficeConverter(enabled: s.office, root: root + "/office", limits: s.limits, warm: s.warm),
            ImageConverter(executable: renderWorkerExecutable(), limits: s.photoLimits, store: content),
        ])
    }
}
