/// The table of converters (docs/protocol.md §30.1): the service asks it what an upload
/// that is neither a PDF nor a clip is, by its content. The first converter whose
/// `detect` knows the file takes it. To add a format family, write a `DeckConverter` and
/// add it to the list the service builds (`Service`, from the `[convert]` config).
public struct DeckConverters: Sendable {
    public let all: [any DeckConverter]
    public init(_ all: [any DeckConverter]) { self.all = all }

    /// The converter and format of `file`, or nil: no converter knows it.
    public func detect(_ file: FileSniff) -> (converter: any DeckConverter, format: SourceFormat)? {
        for c in all { if let f = c.detect(file) { return (c, f) } }
        return nil
    }

    /// The converter that took `format` (by its id), after a restart.
    public func converter(for format: String, file: FileSniff) -> (converter: any DeckConverter, format: SourceFormat)? {
        guard let found = detect(file), found.format.id == format else { return nil }
        return found
    }

    /// An upload named `fileName` begins: the converters likely to take it get ready.
    public func prepare(forFileNamed fileName: String) {
        for c in all where c.unavailable == nil && c.likely(fileName: fileName) { c.prepare() }
    }
    public func shutdown() { for c in all { c.shutdown() } }

    public static let none = DeckConverters([])
}
