/// The `[convert]` section of the config (docs/config.md): how uploads that are neither a
/// PDF nor a clip are converted to PDF on the appliance (docs/protocol.md §30).
public struct ConvertSettings: Equatable, Sendable {
    /// Office documents (LibreOffice): on when LibreOffice and bubblewrap are installed.
    public var office = true
    /// Wall-clock seconds one conversion may take, from its start.
    public var timeoutSeconds = 60
    /// Conversions at once (each a LibreOffice of a few hundred MB), and waiting besides.
    public var atOnce = 1
    public var queue = 8
    /// Memory one conversion may use (its data segment: RLIMIT_DATA), MB.
    public var memoryMB = 1024
    /// Pages a converted document may have.
    public var maxPages = 500
    /// What a zipped document (OOXML, ODF, Keynote) may unpack to, MB.
    public var maxUnpackedMB = 500
    /// Keep a converter started ahead (LibreOffice up in its sandbox, waiting for a file):
    /// the first page is on the wall seconds sooner, for its memory while idle.
    public var warm = true
    /// Photos and images (docs/protocol.md §30.9): an image's header may claim at most this
    /// many megapixels; its decoding may use this much memory (MB) and processor time (s);
    /// a deck of images chosen together has at most `imageMaxCount` of them.
    public var imageMaxMegapixels = 250
    public var imageMemoryMB = 384
    public var imageCPUSeconds = 20
    public var imageMaxCount = 100
    public init() {}
}
