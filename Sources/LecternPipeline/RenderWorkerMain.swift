import Foundation
import Glibc
import LecternModel
import LecternSystem
import LecternRender

/// The render worker's side (`lecternd --render-worker`, started by `RenderWorker`):
/// limits itself, then draws the pages it is asked for into the memfds that come with
/// the requests, one at a time, until the service closes the socket.
public enum RenderWorkerMain {
    /// Where the worker finds its end of the socket pair.
    public static let socketDescriptor: Int32 = 3

    public static func run(memoryMB: Int, cpuSeconds: Int) -> Never {
        let s = socketDescriptor
        confine(keeping: s, memoryMB: memoryMB, what: "render worker")

        // The documents opened last (a page turn in the same deck parses nothing again).
        var open: [(path: String, document: PDFDocument)] = []
        // The service's pool holds 2 free buffers and up to 2 more are in flight or
        // just released: mapping the last 3 keeps page turns fault-free and holds at
        // most 3 frames alive that the service let go.
        var mappings = SharedFrame.Mappings(capacity: 3)
        while let (bytes, fd) = SeqPacket.receive(s, max: RenderWire.maxMessage) {
            guard let request = try? RenderWire.decodeRequest(bytes) else {
                if fd >= 0 { close(fd) }
                continue
            }
            var failure: ContentError?
            var drawn: RenderWire.Drawn?
            if fd < 0 {
                failure = .damaged(detail: "no frame memory came with the request")
            } else if let memory = mappings.map(fd, byteCount: request.byteCount) {
                allowCPU(seconds: cpuSeconds)
                let frame = Frame(wrapping: memory, width: request.width, height: request.height, stride: request.width * 4)
                do {
                    let document: PDFDocument
                    if let i = open.firstIndex(where: { $0.path == request.path }) {
                        document = open[i].document
                    } else {
                        document = try PDFDocument(path: request.path)
                        open.append((request.path, document))
                        if open.count > 2 { open.removeFirst() }
                    }
                    let settings = Compositor.Settings(
                        width: request.width, height: request.height, background: request.background,
                        overscanPercent: request.overscanPercent)
                    // The box and the transition go back with the page: the service never
                    // opens the PDF for them.
                    let box = try Compositor.renderPage(document, page: request.page, into: frame, settings: settings, part: request.part)
                    drawn = RenderWire.Drawn(pageRect: box, transition: document.transition(page: request.page))
                } catch let e as ContentError {
                    if case .overLimits(let p, _) = e { failure = .overLimits(page: p, megabytes: memoryMB) } else { failure = e }
                } catch {
                    failure = .damaged(detail: "\(error)")
                }
                // A page over the limit: the buffers it may have left mapped go too.
                if case .overLimits = failure { mappings.clear() }
            } else {
                failure = .overLimits(page: request.page, megabytes: memoryMB)
            }
            let outcome: Result<RenderWire.Drawn, ContentError> =
                drawn.map { .success($0) } ?? .failure(failure ?? .damaged(detail: "the page was not drawn"))
            guard SeqPacket.send(s, RenderWire.encode(RenderWire.Reply(serial: request.serial, outcome))) else { break }
        }
        exit(0)
    }

    /// What every worker does first (the render worker, the record worker): nothing of the
    /// service's open but descriptors 0…`fd`, gone when the service is, at most
    /// `memoryMB` of address space beyond what it has mapped now, and the first the kernel
    /// kills when memory runs out.
    public static func confine(keeping fd: Int32, memoryMB: Int, what: String) {
        // Nothing of the service's but the socket: no listening socket, no upload.
        closeDescriptors(above: fd)
        // No PR_SET_PDEATHSIG: it fires when the *thread* that started the worker ends
        // (a show's thread), not the service. Instead a thread of the worker's own watches
        // its parent: once the service is gone (the worker is reparented) it exits within
        // a tenth of a second, even mid-page; RLIMIT_CPU stays as the backstop. (A CPU-time
        // backstop alone took 20 s of wall time on a loaded machine.)
        exitWhenOrphaned()
        // The budget is what a page may use beyond what the worker has mapped at start
        // (≈ 270 MB of address space, nearly all of it shared libraries: FFmpeg, ICU,
        // poppler, cairo are mapped, not resident).
        let limit = addressSpace() + (memoryMB << 20)
        var r = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
        if setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &r) != 0 {
            // Still bounded in time (killed past the budget) and by the unit's MemoryMax,
            // where the kernel picks a worker first (below): said loudly, not fatal.
            FileHandle.standardError.write(Data("lecternd \(what): no memory limit: \(String(cString: strerror(errno)))\n".utf8))
        }
        // If the unit's MemoryMax is reached all the same, the kernel kills a worker (a
        // page refused), never the service.
        let adj = open("/proc/self/oom_score_adj", O_WRONLY)
        if adj >= 0 {
            _ = write(adj, "1000", 4)
            close(adj)
        }

    }

    /// The process's address space now, bytes (/proc/self/statm's first field).
    static func addressSpace() -> Int {
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0, let pages = Int(String(decoding: buffer[0..<n].prefix { $0 != 32 }, as: UTF8.self)) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Exits the worker as soon as its parent is no longer the service that started it.
    private static func exitWhenOrphaned() {
        let service = getppid()
        let watch = Thread {
            while getppid() == service { usleep(100_000) }
            _exit(0)
        }
        watch.name = "orphan watch"
        watch.start()
    }

    /// RLIMIT_CPU counts the process's whole life: before each page, the soft limit is
    /// set `seconds` past what was used so far (SIGXCPU ends the worker there).
    public static func allowCPU(seconds: Int) {
        var u = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
        let used = Int(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1
        var r = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &r)
        r.rlim_cur = min(rlim_t(used + max(1, seconds)), r.rlim_max)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &r)
    }

    private static func closeDescriptors(above fd: Int32) {
        if let closeRange, closeRange(UInt32(fd + 1), UInt32.max, 0) == 0 { return }   // Linux 5.9, glibc 2.34
        var r = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &r)
        for d in (fd + 1)..<Int32(clamping: min(Int(r.rlim_cur), 65536)) { close(d) }
    }

    // Not declared by Swift's Glibc module: looked up by name.
    private static let closeRange = LibcSymbol.lookup("close_range", as: (@convention(c) (UInt32, UInt32, Int32) -> Int32).self)
}
