/// Bounds-checked big-endian reader over an untrusted byte buffer. Never traps:
/// every read that would run past the end throws `WireError.truncated`.
public struct ByteReader {
    public let bytes: ArraySlice<UInt8>
    public private(set) var index: Int

    public init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        self.bytes = ArraySlice(bytes)
        self.index = self.bytes.startIndex
    }

    /// Over an array without copying it (a frame body of up to 1 MiB).
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes[...]
        self.index = self.bytes.startIndex
    }

    public var remaining: Int { bytes.endIndex - index }
    public var isAtEnd: Bool { index >= bytes.endIndex }

    public mutating func u8() throws(WireError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated }
        defer { index += 1 }
        return bytes[index]
    }

    public mutating func u16() throws(WireError) -> UInt16 {
        guard remaining >= 2 else { throw .truncated }
        defer { index += 2 }
        return UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
    }

    public mutating func u32() throws(WireError) -> UInt32 {
        guard remaining >= 4 else { throw .truncated }
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 8 | UInt32(bytes[index + i]) }
        index += 4
        return v
    }

    public mutating func u64() throws(WireError) -> UInt64 {
        guard remaining >= 8 else { throw .truncated }
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(bytes[index + i]) }
        index += 8
        return v
    }

    public mutating func bytes(_ count: Int) throws(WireError) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw .truncated }
        defer { index += count }
        return Array(bytes[index..<(index + count)])
    }

    public mutating func rest() -> [UInt8] {
        defer { index = bytes.endIndex }
        return Array(bytes[index...])
    }

    /// A UTF-8 string whose byte count is given by a u16 prefix.
    public mutating func string16(max: Int, field: String) throws(WireError) -> String {
        let n = Int(try u16())
        guard n <= max else { throw .invalid("\(field) is \(n) bytes, more than \(max)") }
        return try utf8(bytes(n), field: field)
    }

    /// A UTF-8 string whose byte count is given by a u8 prefix.
    public mutating func string8(field: String) throws(WireError) -> String {
        let n = Int(try u8())
        return try utf8(bytes(n), field: field)
    }

    public func utf8(_ raw: [UInt8], field: String) throws(WireError) -> String {
        guard let s = String(validating: raw, as: UTF8.self) else { throw .invalid("\(field) is not valid UTF-8") }
        return s
    }

    public func expectEnd() throws(WireError) {
        guard isAtEnd else { throw .trailingBytes(remaining) }
    }
}

/// Why a body could not be read.
public enum WireError: Error, Equatable, Sendable {
    case truncated
    case trailingBytes(Int)
    case invalid(String)
}

/// Big-endian writer.
public struct ByteWriter {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    public mutating func u16(_ v: UInt16) { bytes.append(UInt8(v >> 8)); bytes.append(UInt8(truncatingIfNeeded: v)) }
    public mutating func u32(_ v: UInt32) { for s in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt32(s))) } }
    public mutating func u64(_ v: UInt64) { for s in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(s))) } }
    public mutating func bytes<C: Collection>(_ b: C) where C.Element == UInt8 { bytes.append(contentsOf: b) }
    /// u16 length + UTF-8; the caller keeps strings within their documented maximum.
    public mutating func string16(_ s: String) {
        let u = Array(s.utf8.prefix(Int(UInt16.max)))
        u16(UInt16(u.count)); bytes(u)
    }
    public mutating func string8(_ s: String) {
        let u = Array(s.utf8.prefix(255))
        u8(UInt8(u.count)); bytes(u)
    }
}

/// Lower-case hex of bytes, optionally grouped ("0a 1b ...").
public func hexString<C: Collection>(_ bytes: C, separator: String = "") -> String where C.Element == UInt8 {
    let digits = Array("0123456789abcdef")
    var out = ""
    out.reserveCapacity(bytes.count * (2 + separator.count))
    var first = true
    for b in bytes {
        if !first { out += separator }
        first = false
        out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0xF)])
    }
    return out
}

/// Parses hex (whitespace ignored, either case); nil on anything else.
public func bytesFromHex(_ s: String) -> [UInt8]? {
    var out: [UInt8] = []
    var high: UInt8? = nil
    for c in s.unicodeScalars {
        if c == " " || c == "\n" || c == "\t" || c == "\r" { continue }
        let v: UInt8
        switch c.value {
        case 0x30...0x39: v = UInt8(c.value - 0x30)
        case 0x61...0x66: v = UInt8(c.value - 0x61 + 10)
        case 0x41...0x46: v = UInt8(c.value - 0x41 + 10)
        default: return nil
        }
        if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
    }
    return high == nil ? out : nil
}
