import Foundation
import Glibc
import LecternModel
import LecternPipeline
import LecternRender
import LecternVideo

/// The record worker's side (`lecternd --record-worker <out.pdf>`, started by
/// `RecordMaker`): confined like the render workers (`RenderWorkerMain.confine`: memory,
/// CPU per page, gone with the service), it reads the `RecordJob` as JSON on its standard
/// input, draws the PDF into the file named, and writes one line per page done to its
/// standard output. Exit status 0: the PDF is complete; else its last line on standard
/// error says why.
public enum RecordWorkerMain {
    /// The largest job accepted on standard input (the record's ink is bounded by the
    /// room's ink limits; a job past this is not the service's).
    public static let maxJobBytes = 64 << 20

    public static func run(output: String, memoryMB: Int, cpuSeconds: Int) -> Never {
        RenderWorkerMain.confine(keeping: 2, memoryMB: memoryMB, what: "record worker")
        var input = Data()
        while let chunk = try? FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty {
            input.append(chunk)
            if input.count > maxJobBytes { fail("the job is larger than \(maxJobBytes >> 20) MB") }
        }
        let job: RecordJob
        do { job = try JSONDecoder().decode(RecordJob.self, from: input) } catch { fail("the job can't be read: \(error)") }
        do {
            try draw(job, to: output) { done in
                FileHandle.standardOutput.write(Data("\(done)\n".utf8))
                // Each page its CPU budget; the end of the file (fonts, images written once) a second per 5 pages more.
                RenderWorkerMain.allowCPU(seconds: done < job.pageCount ? cpuSeconds : cpuSeconds + job.pageCount / 5)
            }
        } catch {
            fail("\(error)")
        }
        exit(0)
    }

    /// Draws `job` into the PDF at `path`; `progress` after each page with the pages done.
    /// (The bench calls it in-process.)
    public static func draw(_ job: RecordJob, to path: String, progress: (Int) -> Void = { _ in }) throws {
        let pdf = try RecordPDF(path: path)
        var notes: [String] = []
        if job.dropped > 0 { notes.append("The record was full: the last \(job.dropped) pages shown are not in it.") }
        if job.inkDropped > 0 { notes.append("The record's ink was full: \(job.inkDropped) strokes are not in it.") }
        let note = notes.isEmpty ? nil : notes.joined(separator: " ")
        pdf.addCover(room: job.room, date: dateLine(job), presenters: job.presenters.map { ($0.name, $0.shown) }, footnote: note)
        progress(pdf.pages)
        // The two documents used last stay open (a deck's pages come in runs).
        var open: [(path: String, document: PDFDocument)] = []
        func document(_ content: String) throws -> PDFDocument {
            guard let path = job.files[content] else { throw ContentError.unreadable(path: content, reason: "not in the store any more") }
            if let d = open.first(where: { $0.path == path }) { return d.document }
            let d = try PDFDocument(path: path)
            open.append((path, d))
            if open.count > 2 { open.removeFirst() }
            return d
        }
        for page in job.pages {
            switch page {
            case .deck(let content, let name, let n, let part, let strokes):
                do { try pdf.addDeckPage(try document(content), page: n, part: part, strokes: strokes) } catch {
                    // A deck removed since, or a page poppler can't draw: said on its page, not the end of the record.
                    pdf.addCard(WallCard(title: "\(name), page \(n)", lines: ["This page could not be drawn: \(error)"]))
                }
            case .whiteboard(let black, _, let strokes):
                pdf.addWhiteboard(black: black, strokes: strokes)
            case .card(let card):
                pdf.addCard(card)
            case .clip(let content, let name, let duration):
                pdf.addClip(firstFrame: job.files[content].flatMap(firstFrame), name: name, duration: duration)
            case .wall(let wall):
                pdf.addWall(
                    wall, background: job.background, overscanPercent: job.overscanPercent, document: document,
                    poster: { job.files[$0].flatMap(firstFrame) })
            case .share(let name, let source, let at, let duration, let start, let end):
                let (s, e) = (start.flatMap(picture), end.flatMap(picture))
                pdf.addShare(
                    start: s ?? e, end: e, name: name, source: source, date: timeLine(at, duration), duration: duration)
            }
            progress(pdf.pages)
        }
        try pdf.finish()
    }

    /// The clip's first picture, at most 960×540, or nil when it can't be decoded.
    static func firstFrame(path: String) -> Frame? {
        guard let decoder = try? ClipDecoder(path: path) else { return nil }
        defer { decoder.close() }
        guard let f = try? decoder.nextFrame() else { return nil }
        let turned = f.rotation % 180 != 0
        let w = Double(turned ? f.height : f.width), h = Double(turned ? f.width : f.height)
        guard w > 0, h > 0 else { return nil }
        let scale = min(1, 960 / w, 540 / h)
        let frame = Frame(width: max(2, Int(w * scale) & ~1), height: max(2, Int(h * scale) & ~1))
        do { try f.draw(into: frame, rect: PixelRect(x: 0, y: 0, width: frame.width, height: frame.height)) } catch { return nil }
        return frame
    }

    /// A picture the service kept for the record (a JPEG of at most 960×540), or nil.
    static func picture(path: String) -> Frame? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 4 << 20 else { return nil }
        return try? JPEG.decode([UInt8](data), maxPixels: 960 * 540)
    }

    /// "09:02–09:14" in the appliance's time zone: from `at`, for `duration` seconds.
    static func timeLine(_ at: Double, _ duration: Double) -> String {
        let time = DateFormatter()
        time.locale = Locale(identifier: "en_GB")
        time.dateFormat = "HH:mm"
        return time.string(from: Date(timeIntervalSince1970: at)) + "–" + time.string(from: Date(timeIntervalSince1970: at + duration))
    }

    /// "Tuesday 24 November 2026, 09:02–10:15" in the appliance's time zone.
    static func dateLine(_ job: RecordJob) -> String {
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_GB")
        day.dateFormat = "EEEE d MMMM yyyy, HH:mm"
        let time = DateFormatter()
        time.locale = day.locale
        time.dateFormat = "HH:mm"
        return day.string(from: Date(timeIntervalSince1970: job.startedAt)) + "–" + time.string(from: Date(timeIntervalSince1970: job.madeAt))
    }

    private static func fail(_ why: String) -> Never {
        FileHandle.standardError.write(Data("\(why)\n".utf8))
        exit(1)
    }
}
