import Foundation
import LecternModel
import LecternSystem
import LecternProtocol
import LecternRender
import LecternRoom
import NIOConcurrencyHelpers

/// The slide on the wall for viewers over HTTP (docs/protocol.md §24.2): who may fetch is
/// the room's `PageImageAccess` (set after every event); each page at each quantised width
/// is rendered once by the same pipeline (the compositor's background render worker),
/// encoded once (`SlideEncoding`), kept in a `PageImageCache` bounded by bytes and served
/// with its strong ETag. 250 viewers asking for a new page at once cost one render per
/// width: the later ones wait for the first's. Renders run on threads of their own, at
/// most `maxRenders` at once, at most `maxQueued` more waiting (then 503).
final class PageImages: Sendable {
    enum Answer: Sendable {
        case image(PageImageCache.Image)
        case forbidden(String)
        case notFound(String)
        case busy
        case failed(String)
    }

    typealias Render = @Sendable (_ content: String, _ page: Int, _ width: Int, _ part: PagePart) throws -> Frame
    typealias OutputSize = @Sendable () -> (width: Int, height: Int)

    /// Encoded images kept (bytes); documented in §24.8.
    static let cacheBytes = 24 << 20
    static let maxRenders = 2
    static let maxQueued = 32

    private struct State {
        var access = PageImageAccess()
        var cache = PageImageCache(capacityBytes: PageImages.cacheBytes)
        var waiting: [PageImageCache.Key: [@Sendable (Answer) -> Void]] = [:]
        var queue: [PageImageCache.Key] = []
        var running = 0
        var renders = 0
    }
    private let state = NIOLockedValueBox(State())
    private let render: Render
    private let outputSize: OutputSize

    init(render: @escaping Render, outputSize: @escaping OutputSize) {
        self.render = render
        self.outputSize = outputSize
    }

    func setAccess(_ a: PageImageAccess) {
        state.withLockedValue { if $0.access != a { $0.access = a } }
    }

    /// Renders done so far (the bench and tests count them).
    var renders: Int { state.withLockedValue { $0.renders } }
    var cachedBytes: Int { state.withLockedValue { $0.cache.bytes } }

    /// The image for `r`, or why not; `done` runs on this thread (cached) or a render's.
    func fetch(_ r: PageImageAddress.Request, done: @escaping @Sendable (Answer) -> Void) {
        let size = outputSize()
        enum Next { case answer(Answer), start(PageImageCache.Key), wait }
        let next: Next = state.withLockedValue { s in
            let part: PagePart
            switch s.access.decide(key: r.key, content: r.content, page: r.page) {
            case .forbidden(let why): return .answer(.forbidden(why))
            case .notShown(let why): return .answer(.notFound(why))
            case .allowed(let p): part = p
            }
            let key = PageImageCache.Key(content: r.content, page: r.page, width: r.width, part: part, outputWidth: size.width, outputHeight: size.height)
            if let image = s.cache.lookup(key) { return .answer(.image(image)) }
            if s.waiting[key] != nil {
                s.waiting[key]!.append(done)
                return .wait
            }
            guard s.queue.count < Self.maxQueued else { return .answer(.busy) }
            s.waiting[key] = [done]
            if s.running < Self.maxRenders {
                s.running += 1
                return .start(key)
            }
            s.queue.append(key)
            return .wait
        }
        switch next {
        case .answer(let a): done(a)
        case .wait: break
        case .start(let key): start(key)
        }
    }

    private func start(_ key: PageImageCache.Key) {
        let thread = Thread { [self] in
            ThreadName.set("lectern.pageimg")   // the name the kernel shows (/proc, top -H)
            var key = key
            while true {
                let answer: Answer
                do {
                    let frame = try render(key.content, key.page, key.width, key.part)
                    let (bytes, type) = SlideEncoding.encode(frame)
                    let etag = "\"" + String(ContentHasher.id(of: bytes).hex.prefix(32)) + "\""
                    answer = .image(PageImageCache.Image(bytes: bytes, contentType: type, etag: etag))
                } catch {
                    answer = .failed(LecternError(mapping: error).message)
                }
                let (waiters, next): ([@Sendable (Answer) -> Void], PageImageCache.Key?) = state.withLockedValue { s in
                    if case .image(let image) = answer { s.cache.insert(image, for: key) }
                    s.renders += 1
                    let w = s.waiting.removeValue(forKey: key) ?? []
                    if s.queue.isEmpty {
                        s.running -= 1
                        return (w, nil)
                    }
                    return (w, s.queue.removeFirst())
                }
                for w in waiters { w(answer) }
                guard let n = next else { return }
                key = n
            }
        }
        thread.name = "lectern.pageimg"
        thread.start()
    }
}
