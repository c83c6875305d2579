import Crypto
import LecternModel

/// The SHA-256 of a TLS certificate's DER bytes (docs/protocol.md §25.5): what the idle
/// screen shows (its short form), what `lectern` pins on first use and what
/// `--fingerprint` gives. Pure: hashing and text forms, no TLS library.
public struct CertificateFingerprint: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes of the SHA-256.
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// The fingerprint of a certificate's DER encoding.
    public init(der: [UInt8]) { bytes = Array(SHA256.hash(data: der)) }

    /// 64 lower-case hex digits (what the known-rooms file keeps).
    public var hex: String { hexString(bytes) }

    /// The short form on the idle screen: the first 8 bytes, as 4 groups of 4 upper-case
    /// hex digits ("3FA2 9B10 C4D7 E8F1"). 64 bits: a forged certificate matching them
    /// would take about 2^64 tries of key generation.
    public var short: String {
        let h = hexString(Array(bytes.prefix(8))).uppercased()
        return stride(from: 0, to: 16, by: 4).map { i in
            String(h[h.index(h.startIndex, offsetBy: i)..<h.index(h.startIndex, offsetBy: i + 4)])
        }.joined(separator: " ")
    }

    /// "SHA-256 3FA2 9B10 C4D7 E8F1 …" for people.
    public var description: String { "SHA-256 " + short }

    /// A fingerprint as a person gives it (`--fingerprint`): hex digits, upper or lower
    /// case, with any spaces and colons between them (as the idle screen and `openssl x509
    /// -fingerprint` write it). At least the short form's 16 digits; at most all 64.
    public struct Given: Equatable, Sendable {
        /// The hex digits given, lower case.
        public let digits: String

        public init?(_ text: String) {
            var t = Substring(text.lowercased())
            for label in ["sha-256", "sha256"] where t.hasPrefix(label) { t = t.dropFirst(label.count) }   // "SHA256 …", as openssl writes it
            var d = ""
            for ch in t {
                if ch == " " || ch == ":" { continue }
                guard ch.isHexDigit, ch.isASCII else { return nil }
                d.append(ch)
            }
            guard (16...64).contains(d.count) else { return nil }
            digits = d
        }

        /// Whether the certificate's fingerprint starts with the digits given.
        public func matches(_ f: CertificateFingerprint) -> Bool { f.hex.hasPrefix(digits) }
    }
}
