/// When a render worker is replaced by a fresh one, and whether a page it refused is tried
/// once more: the decision, with no I/O (`RenderWorker` carries it out).
///
/// A worker's memory limit is its address space at start plus the page budget
/// (`render_memory_mb`). A worker that has drawn hundreds of pages keeps some of what
/// they used (the heap's high-water mark, fonts, the documents it holds open), so its
/// growth comes out of the next page's budget. So:
/// - **Recycling**, checked between pages: a worker whose address space (its frame
///   mappings not counted) has grown by more than a quarter of the page budget since its
///   first page, or that has drawn `maxPages` pages, is replaced by a fresh one at once.
/// - **Retrying**: a page refused for memory or time by a worker that had drawn pages
///   before it is tried once more on a fresh worker (with a budget of its own); only a
///   refusal by a fresh worker is the page's own, and is remembered (slow-pages).
public struct WorkerUpkeep: Equatable, Sendable {
    public enum Refusal: Equatable, Sendable { case memory, time }
    public enum Verdict: Equatable, Sendable {
        /// Replace the worker and ask again.
        case retryOnFresh
        /// The page's own: remember it as slow.
        case remember
    }
    public enum Action: Equatable, Sendable { case keep, recycle }

    /// The memory a page may use (the worker's limit beyond its start), bytes.
    public let pageBudgetBytes: Int
    /// A worker is replaced after this many pages, whatever its growth.
    public let maxPages: Int
    /// Pages the worker now running has finished (drawn or refused and lived on).
    public private(set) var pages = 0
    /// Its address space after its first page (nil: no page yet, or not measurable).
    public private(set) var baseline: Int?

    public init(pageBudgetBytes: Int, maxPages: Int = 1000) {
        self.pageBudgetBytes = pageBudgetBytes
        self.maxPages = max(1, maxPages)
    }

    /// Growth since the first page past which the worker is replaced.
    public var growthAllowance: Int { pageBudgetBytes / 4 }

    /// Whether the worker now running has drawn nothing yet.
    public var fresh: Bool { pages == 0 }

    /// A fresh worker was started.
    public mutating func started() {
        pages = 0
        baseline = nil
    }

    /// The worker finished a page and lives on; `footprint` is its address space now, frame
    /// mappings not counted (nil: unknown). Whether to replace it before the next page.
    public mutating func finishedPage(footprint: Int?) -> Action {
        pages += 1
        if pages >= maxPages { return .recycle }
        guard let footprint else { return .keep }
        guard let first = baseline else {
            baseline = footprint
            return .keep
        }
        return footprint - first > growthAllowance ? .recycle : .keep
    }

    /// A page was refused (`refusal`) by the worker now running; `retried`: this was already
    /// the second try. Retried once on a fresh worker unless this one was fresh.
    public func verdict(on refusal: Refusal, retried: Bool) -> Verdict {
        retried || fresh ? .remember : .retryOnFresh
    }
}
