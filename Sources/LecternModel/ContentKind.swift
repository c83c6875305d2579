/// Kind of an uploaded file. On the wire: u8 (0 only in upload-begin: "detect it"); in JSON
/// (state snapshots, the content store's `<sha256>.json` files) and for people: "pdf", "clip".
public enum ContentKind: UInt8, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case pdf = 1
    case clip = 2

    public var description: String { self == .pdf ? "pdf" : "clip" }

    public init(from decoder: Decoder) throws {
        let s = try decoder.singleValueContainer().decode(String.self)
        guard let k = ContentKind.allCases.first(where: { $0.description == s }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown kind \(s)"))
        }
        self = k
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer(); try c.encode(description)
    }
}
