import Foundation
import LecternModel
import LecternSystem
import LecternRender
import LecternService
import LecternTestSupport

/// `LECTERN_BENCH_ONLY=record`: the meeting record (issue 18, docs/protocol.md §26) — the
/// time to produce the PDF of a 100-page meeting (the bench deck's pages in turn, each with
/// six ink strokes), through the record worker process as the service runs it
/// (`lecternd --record-worker`, the job on its standard input), against pdftocairo -pdf
/// of the same 100 pages (poppler into cairo's PDF surface too, without ink or cover),
/// interleaved round by round. (The worker's progress lines are no per-page clock: cairo
/// writes much of the file when it is finished.)
func runRecordBenchmarks(pages source: [PDFSketch.Page], rounds: Int) throws {
    let n = 100
    let dir = Fixtures.tempDir("record-bench")
    let eight = try Fixtures.pdf(source, in: dir, name: "deck.pdf")
    let hundred = try Fixtures.pdf((0..<n).map { source[$0 % source.count] }, in: dir, name: "hundred.pdf")
    let strokes = (0..<6).map { i in
        InkStroke(
            id: UInt32(i + 1), author: 1, color: InkPalette.colors[i % InkPalette.colors.count], tool: i == 5 ? .highlighter : .pen, width: .thick,
            points: (0...40).map { k in InkPoint(px: 0.1 + 0.8 * Double(k) / 40, py: 0.2 + 0.1 * Double(i) + 0.03 * sin(Double(k) / 3)) })
    }
    var job = RecordJob(
        room: "Bench Room", startedAt: 1_790_000_000, madeAt: 1_790_003_600,
        presenters: [RecordJob.Presenter(name: "Ana", shown: ["deck.pdf"])], dropped: 0,
        pages: (0..<n).map { .deck(content: "deck", name: "deck.pdf", page: $0 % source.count + 1, part: .whole, strokes: strokes) })
    job.files = ["deck": eight]
    let body = try JSONEncoder().encode(job)

    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    let lecternd = (exe as NSString).deletingLastPathComponent + "/lecternd"
    precondition(FileManager.default.isExecutableFile(atPath: lecternd), "build lecternd beside lectern-bench (make bench does)")

    /// The service's path: a worker process, the job as JSON on stdin, a line per page; seconds, and the PDF's size.
    func worker(_ body: Data, _ out: String) throws -> (Double, Int) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: lecternd)
        p.arguments = ["--record-worker", out, "--render-memory-mb", "192", "--render-cpu-seconds", "10"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        let t0 = MonotonicClock.now()
        try p.run()
        try input.fileHandleForWriting.write(contentsOf: body)
        try input.fileHandleForWriting.close()
        _ = try output.fileHandleForReading.readToEnd()   // the progress lines, as the service reads them
        p.waitUntilExit()
        precondition(p.terminationStatus == 0, "the record worker failed")
        return (MonotonicClock.now() - t0, (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0)
    }

    var ours: [Double] = [], inProcess: [Double] = [], theirs: [Double] = []
    var size = 0, theirSize = 0
    for _ in 0..<rounds {
        let out = dir + "/record.pdf"
        let (t, bytes) = try worker(body, out)
        ours.append(t)
        size = bytes

        // the same drawing in this process (no process start, no JSON)
        let t1 = MonotonicClock.now()
        try RecordWorkerMain.draw(job, to: dir + "/in-process.pdf")
        inProcess.append(MonotonicClock.now() - t1)

        // the reference: pdftocairo -pdf of the 100 pages
        let t2 = MonotonicClock.now()
        let r = try Fixtures.run("pdftocairo", ["-pdf", hundred, dir + "/ref.pdf"])
        precondition(r.status == 0, r.err)
        theirs.append(MonotonicClock.now() - t2)
        theirSize = (try? FileManager.default.attributesOfItem(atPath: dir + "/ref.pdf")[.size] as? Int) ?? 0
    }
    func s(_ x: Double) -> String { String(format: "%.0f ms", x * 1000) }
    print("meeting record of a \(n)-page meeting (6 ink strokes a page, + cover), \(rounds) rounds:")
    print("  record worker (lecternd --record-worker)  p50 \(s(percentile(ours, 0.5)))  p99 \(s(percentile(ours, 0.99)))  \(size / 1024) KiB")
    print("  the same drawing in-process               p50 \(s(percentile(inProcess, 0.5)))  p99 \(s(percentile(inProcess, 0.99)))")
    print("  pdftocairo -pdf of the same 100 pages     p50 \(s(percentile(theirs, 0.5)))  p99 \(s(percentile(theirs, 0.99)))  \(theirSize / 1024) KiB")
    print(String(format: "  ratio record worker / pdftocairo = %.3f (p50)", percentile(ours, 0.5) / percentile(theirs, 0.5)))
    print("  per record page (worker p50 / \(n + 1))  \(ms(percentile(ours, 0.5) / Double(n + 1)))")

    // A meeting of walls (issue 26, §26.1): 100 record pages each a quad of four of the deck's
    // pages with their ink (400 deck pages drawn), against pdftocairo -pdf of 400 pages.
    let quad = RecordWall(
        layout: .quad, width: 1920, height: 1080,
        panes: (0..<4).map { .page(content: "deck", name: "deck.pdf", page: $0 % source.count + 1, part: .whole, strokes: strokes) },
        drivers: ["Ana", "Ben", "Cy", "Dee"])
    var walls = job
    walls.pages = (0..<n).map { _ in .wall(quad) }
    let wallBody = try JSONEncoder().encode(walls)
    let four = try Fixtures.pdf((0..<(4 * n)).map { source[$0 % source.count] }, in: dir, name: "four-hundred.pdf")
    var wallTimes: [Double] = [], fourTimes: [Double] = []
    var wallSize = 0
    for _ in 0..<rounds {
        let (t, bytes) = try worker(wallBody, dir + "/walls.pdf")
        wallTimes.append(t)
        wallSize = bytes
        let t2 = MonotonicClock.now()
        let r = try Fixtures.run("pdftocairo", ["-pdf", four, dir + "/ref4.pdf"])
        precondition(r.status == 0, r.err)
        fourTimes.append(MonotonicClock.now() - t2)
    }
    print("meeting record of \(n) quads (4 deck pages with ink each, one record page a quad), \(rounds) rounds:")
    print("  record worker                          p50 \(s(percentile(wallTimes, 0.5)))  p99 \(s(percentile(wallTimes, 0.99)))  \(wallSize / 1024) KiB")
    print("  pdftocairo -pdf of the same 400 pages  p50 \(s(percentile(fourTimes, 0.5)))  p99 \(s(percentile(fourTimes, 0.99)))")
    print(String(format: "  ratio record worker / pdftocairo = %.3f (p50)", percentile(wallTimes, 0.5) / percentile(fourTimes, 0.5)))
}
