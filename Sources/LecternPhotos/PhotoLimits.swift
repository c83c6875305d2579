/// What making photos into a deck may cost (docs/protocol.md §30.9, docs/config.md
/// `[convert]`): the child that decodes them runs under these, and what goes past one is
/// refused with the limit named.
public struct PhotoLimits: Equatable, Sendable {
    /// An image whose header claims more pixels than this is refused before it is decoded
    /// (a decompression bomb: a PNG of a few kB claiming 100,000 × 100,000).
    public var maxMegapixels = 250
    /// Address space the child may add for one image beyond what it maps at start, MB.
    public var memoryMB = 384
    /// Processor time one image may take, seconds.
    public var cpuSeconds = 20
    /// The picture kept of each image: a landscape one fits `longSide` × `shortSide`, a
    /// portrait one `shortSide` × `longSide` (what a 4K output shows sharp).
    public var longSide = 3840
    public var shortSide = 2160
    /// Images in one deck.
    public var maxImages = 100

    public init() {}

    /// Wall-clock time the child may take for `images` images (a loaded machine: twice the
    /// processor time, and its start).
    public func wallSeconds(images: Int) -> Double { Double(max(1, images) * 2 * cpuSeconds + 5) }

    /// Why an image over `maxMegapixels` is refused.
    public func tooManyPixels(width: Int, height: Int) -> String {
        let mp = (Double(width) * Double(height) / 1_000_000).rounded()
        return "it is \(width) × \(height) pixels (\(Int(mp)) megapixels), more than the \(maxMegapixels) megapixels an image may have"
    }

    /// Why an image that went past the child's budget is refused.
    public var overBudget: String {
        "decoding it needs more than the \(memoryMB) MB of memory or \(cpuSeconds) s of processor time an image may take"
    }
}
