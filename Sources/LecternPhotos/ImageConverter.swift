import Foundation
import Glibc
import LecternConvert
import LecternModel
import LecternProtocol

/// The converter row of photos and images (docs/protocol.md §30.9): a JPEG, PNG, WebP, GIF
/// or HEIC/HEIF upload becomes a one-page deck (`PhotoDeck`, a bounded child decoding with
/// libvips); an `ImageSet` (images-deck) becomes one deck of those images' pages in the
/// order chosen, merged from their one-page decks by qpdf (nothing is decoded again).
public struct ImageConverter: DeckConverter {
    public let name = "image"
    /// `lecternd`, which runs the child (`--photo-deck`); nil: none beside this program.
    let executable: String?
    let limits: PhotoLimits
    /// The content store's directory: an image set's images' decks are `<store>/<id>.pdf`.
    let store: String
    /// qpdf, which merges an image set's pages.
    let qpdf: String?

    public init(executable: String?, limits: PhotoLimits, store: String, qpdf: String? = ImageConverter.findQpdf()) {
        self.executable = executable
        self.limits = limits
        self.store = store
        self.qpdf = qpdf
    }

    /// The source format of an image format ("jpeg", "JPEG photos").
    public static func format(_ f: ImageFormat) -> SourceFormat { SourceFormat(f.rawValue, f.row.what) }
    /// An image set's.
    public static let set = SourceFormat(ImageSet.format, "images chosen together")

    public func detect(_ file: FileSniff) -> SourceFormat? {
        if ImageSet.starts(file.head) { return Self.set }
        return ImageFormat(head: file.head).map(Self.format)
    }

    public var unavailable: String? {
        if executable == nil { return "the image decoder (lecternd --photo-deck) is not installed beside the service" }
        return nil
    }

    public func convert(_ job: ConversionJob, progress: @escaping @Sendable (Int, Int) -> Void, stop: ConversionStop) throws(ConversionFailure) -> ConvertedDeck {
        guard let executable else { throw .unavailable(unavailable ?? "") }
        if job.format.id == ImageSet.format { return try merge(job, progress: progress, stop: stop) }
        progress(0, 1)
        do {
            let made = try PhotoDeck.make([job.input], into: job.output, executable: executable, limits: limits, stop: stop)
            progress(1, 1)
            return ConvertedDeck(pages: made.pages)
        } catch let f as PhotoDeck.Failure {
            throw refusal(f, name: job.name, format: job.format)
        } catch {
            throw .unreadable("\(error)")
        }
    }

    /// What people are told when an image is not made into a page.
    func refusal(_ f: PhotoDeck.Failure, name: String, format: SourceFormat) -> ConversionFailure {
        let e: LecternError
        switch f {
        case .tooManyPixels(_, let reason): e = .imageTooLarge(name, limitMegapixels: limits.maxMegapixels, reason: reason)
        case .overBudget(_, let reason): e = .imageOverBudget(name, limitMB: limits.memoryMB, reason: reason)
        case .notAnImage, .damaged:
            let detail: String
            if case .damaged(_, let d) = f, !d.isEmpty { detail = " (\(d))" } else { detail = "" }
            e = LecternError(
                .conversionFailed, message: "\(name.prefix(80)) couldn't be read as one of the \(format.what) it looks like\(detail) — save it again and upload that copy.")
        case .tooManyImages(let count, let limit): e = .tooManyImages(count: count, limit: limit)
        case .stopped: return .stopped
        }
        return .refused(code: e.code.rawValue, detail: e.detail, message: e.message)
    }

    // MARK: image sets

    /// The set's images' one-page decks, merged in its order into one PDF by qpdf.
    private func merge(_ job: ConversionJob, progress: @escaping @Sendable (Int, Int) -> Void, stop: ConversionStop) throws(ConversionFailure) -> ConvertedDeck {
        guard let data = FileManager.default.contents(atPath: job.input), let set = ImageSet(bytes: [UInt8](data)) else {
            throw .unreadable("its list of images can't be read")
        }
        if set.images.count > limits.maxImages {
            let e = LecternError.tooManyImages(count: set.images.count, limit: limits.maxImages)
            throw .refused(code: e.code.rawValue, detail: e.detail, message: e.message)
        }
        var pages: [String] = []
        for image in set.images {
            let pdf = store + "/" + image.id + ".pdf"
            guard ContentStoreID.isValid(image.id), FileManager.default.fileExists(atPath: pdf) else {
                throw .unreadable("\(image.name.prefix(80)) is no longer on the appliance")
            }
            pages.append(pdf)
        }
        guard let qpdf else { throw .unavailable("qpdf, which puts the images' pages together, is not installed") }
        progress(0, pages.count)
        try PageMerge.run(qpdf: qpdf, pages: pages, output: job.output, seconds: limits.cpuSeconds, stop: stop)
        progress(pages.count, pages.count)
        return ConvertedDeck(pages: pages.count)
    }

    /// qpdf on the PATH the service has (Debian's `qpdf` package), or nil.
    public static func findQpdf() -> String? {
        for dir in ["/usr/bin", "/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/qpdf") { return dir + "/qpdf" }
        return nil
    }
}

/// Content ids as the store names files: 64 lower-case hex digits.
enum ContentStoreID {
    static func isValid(_ id: String) -> Bool { id.count == 64 && id.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) } }
}
