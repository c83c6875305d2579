/// The config's `[share]` section (docs/config.md): the caps on a live share (docs/protocol.md
/// §29.2) and its decoder process's limits. At most the protocol's own caps.
public struct ShareSettings: Equatable, Sendable {
    /// The largest picture: each side at most the larger of the two, pixels at most their
    /// product (so a portrait phone camera fits a landscape cap). `max_resolution = "WxH"`.
    public var maxWidth = 1920
    public var maxHeight = 1200
    public var maxFrameRate = 60
    public var maxBitrateKbps = 20_000
    /// Received bytes waiting for the decoder, at most.
    public var maxQueuedKB = 4096
    /// Each share's decoder process: address space beyond what it maps at start.
    public var decoderMemoryMB = 256
    /// Longest one picture may take to decode.
    public var stallSeconds = 2.0
    public init() {}

    /// The largest picture, `max_resolution` as the config file writes it ("1920x1200").
    public var maxResolution: PixelSize {
        get { PixelSize(width: maxWidth, height: maxHeight) }
        set { (maxWidth, maxHeight) = (newValue.width, newValue.height) }
    }

    /// A picture's size in pixels, written "WxH".
    public struct PixelSize: Equatable, Sendable, CustomStringConvertible {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) { (self.width, self.height) = (width, height) }
        public var description: String { "\(width)x\(height)" }
    }
}
