import Foundation
import Glibc
import LecternModel
import LecternPipeline

/// The child's side of `PhotoDeck` (`lecternd --photo-deck OUT [limits] -- IN…`): never
/// returns when asked for. Confined like a render worker (its descriptors closed, an
/// address-space limit of `memoryMB` beyond what it maps at start, the processor time of
/// `cpuSeconds` for each image, the first the kernel kills if memory runs out), it reads
/// each image's header, refuses one over `maxMegapixels` before decoding it, decodes it
/// upright to the size a page keeps and adds its page; it says on standard output what it
/// is doing ("image N", "decode N") and ends with one JSON line, its `PhotoDeck.Report`.
public enum PhotoDeckChild {
    public static let flag = "--photo-deck"

    /// The arguments that run the child (the parent's side of the same list).
    static func arguments(output: String, inputs: [String], limits: PhotoLimits, quality: Int) -> [String] {
        [
            flag, output, "--max-megapixels", String(limits.maxMegapixels), "--memory-mb", String(limits.memoryMB),
            "--cpu-seconds", String(limits.cpuSeconds), "--long", String(limits.longSide), "--short", String(limits.shortSide),
            "--quality", String(quality), "--",
        ] + inputs
    }

    public static func runIfAsked(_ arguments: [String]) {
        guard arguments.count > 2, arguments[1] == flag else { return }
        let output = arguments[2]
        let split = arguments.firstIndex(of: "--") ?? arguments.count
        let inputs = Array(arguments[min(arguments.count, split + 1)...])
        func value(_ name: String, _ fallback: Int) -> Int {
            guard let i = arguments[..<split].firstIndex(of: name), i + 1 < split, let v = Int(arguments[i + 1]) else { return fallback }
            return v
        }
        var limits = PhotoLimits()
        limits.maxMegapixels = value("--max-megapixels", limits.maxMegapixels)
        limits.memoryMB = value("--memory-mb", limits.memoryMB)
        limits.cpuSeconds = value("--cpu-seconds", limits.cpuSeconds)
        limits.longSide = value("--long", limits.longSide)
        limits.shortSide = value("--short", limits.shortSide)
        let quality = value("--quality", PhotoDeck.jpegQuality)

        // libvips and its modules are mapped first: the budget is what decoding adds.
        let started = VipsDecoder.start()
        RenderWorkerMain.confine(keeping: 2, memoryMB: limits.memoryMB, what: "photo deck")
        let report: PhotoDeck.Report
        if !started {
            report = PhotoDeck.Report(failure: .init(index: 0, code: .damaged, detail: "the image decoder did not start"))
        } else {
            report = make(output, from: inputs, limits: limits, quality: quality)
        }
        var final = report
        final.peakKB = peakResidentKB()
        say(String(decoding: (try? JSONEncoder().encode(final)) ?? Data(), as: UTF8.self))
        exit(0)
    }

    private static func make(_ output: String, from inputs: [String], limits: PhotoLimits, quality: Int) -> PhotoDeck.Report {
        let writer: PhotoPDFWriter
        do { writer = try PhotoPDFWriter(path: output) } catch {
            return PhotoDeck.Report(failure: .init(index: 0, code: .damaged, detail: "the deck can't be written"))
        }
        for (n, input) in inputs.enumerated() {
            let index = n + 1
            say("image \(index)")
            RenderWorkerMain.allowCPU(seconds: limits.cpuSeconds)
            do {
                let header = try VipsDecoder.header(input)
                if header.width * header.height > limits.maxMegapixels * 1_000_000 {
                    return PhotoDeck.Report(
                        failure: .init(index: index, code: .tooManyPixels, detail: limits.tooManyPixels(width: header.width, height: header.height)))
                }
                let upright = PhotoFit.upright(width: header.width, height: header.height, orientation: header.orientation)
                let box = PhotoFit.box(width: upright.width, height: upright.height, long: limits.longSide, short: limits.shortSide)
                // What decoding it would take: over the budget, refused before it starts;
                // near it, a decoder's failure is a failure to get memory.
                let need = PhotoFit.decodeBytes(width: upright.width, height: upright.height, format: header.format, box: box)
                let budget = limits.memoryMB << 20
                if need > budget { return PhotoDeck.Report(failure: .init(index: index, code: .overBudget, detail: limits.overBudget)) }
                say("decode \(index)")
                do {
                    let pixels: VipsDecoder.Pixels = try VipsDecoder.decode(input, width: box.width, height: box.height)
                    try writer.add(pixels, jpegQuality: header.format.row.lossy ? quality : nil)
                } catch {
                    if need > budget / 2 { return PhotoDeck.Report(failure: .init(index: index, code: .overBudget, detail: limits.overBudget)) }
                    throw error
                }
            } catch VipsDecoder.Failure.notAnImage {
                return PhotoDeck.Report(failure: .init(index: index, code: .notAnImage, detail: "not an image the appliance takes"))
            } catch VipsDecoder.Failure.damaged(let detail) {
                return PhotoDeck.Report(failure: .init(index: index, code: .damaged, detail: detail))
            } catch let e as ContentError where e == PhotoPDFWriter.noMemory {
                return PhotoDeck.Report(failure: .init(index: index, code: .overBudget, detail: limits.overBudget))
            } catch {
                return PhotoDeck.Report(failure: .init(index: index, code: .damaged, detail: "\(error)"))
            }
        }
        do { try writer.finish() } catch {
            return PhotoDeck.Report(failure: .init(index: inputs.count, code: .damaged, detail: "\(error)"))
        }
        return PhotoDeck.Report(pages: writer.pages)
    }

    /// This process's peak resident memory (VmHWM, kB: new at exec, unlike getrusage's
    /// ru_maxrss, which keeps the spawning process's).
    private static func peakResidentKB() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = s.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") ?? 0
    }

    private static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }
}
