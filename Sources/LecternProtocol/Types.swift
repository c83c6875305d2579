/// A device's id in the room: 1–254 once registered (docs/protocol.md, "Devices").
public typealias DeviceID = UInt8

/// What the service calls a TCP connection; opaque to this module, chosen by the service.
public typealias ConnectionID = UInt64

/// The role a device registers with. On the wire: u8.
public enum Role: UInt8, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case presenter = 1
    case moderator = 2
    /// Someone in the audience (§24): follows the wall, answers polls, asks questions;
    /// never takes the floor. Not a floor device: all viewers use device byte 0xFE.
    case viewer = 3

    public var description: String {
        switch self {
        case .presenter: "presenter"
        case .moderator: "moderator"
        case .viewer: "viewer"
        }
    }

    public init(from decoder: Decoder) throws {
        let s = try decoder.singleValueContainer().decode(String.self)
        guard let r = Role.allCases.first(where: { $0.description == s }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown role \(s)"))
        }
        self = r
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer(); try c.encode(description)
    }
}

// FloorMode and ContentKind (u8 on the wire) are LecternModel's: the config file, the
// content store and the wire share them.

/// A content id: the SHA-256 of the file. On the wire 32 raw bytes; in JSON and for
/// people, 64 lower-case hex digits.
public struct ContentID: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }
    public init?(hex: String) {
        guard hex.utf8.count == 64, let b = bytesFromHex(hex) else { return nil }
        self.bytes = b
    }
    public var hex: String { hexString(bytes) }
    public var description: String { hex }
    public static func < (a: ContentID, b: ContentID) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }

    public init(from decoder: Decoder) throws {
        let s = try decoder.singleValueContainer().decode(String.self)
        guard let id = ContentID(hex: s.lowercased()) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a content id: \(s)"))
        }
        self = id
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer(); try c.encode(hex)
    }
}

/// The 16 random bytes the server gives a device at register. Presenting it at a later
/// register (within the grace period) gets the same id and the floor back.
public struct ResumeToken: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]
    public init?(bytes: [UInt8]) {
        guard bytes.count == ProtocolLimits.resumeTokenLength else { return nil }
        self.bytes = bytes
    }
    /// A fresh token from the system's cryptographic random source.
    public static func random() -> ResumeToken {
        var g = SystemRandomNumberGenerator()
        return ResumeToken(unchecked: (0..<ProtocolLimits.resumeTokenLength).map { _ in UInt8.random(in: .min ... .max, using: &g) })
    }
    init(unchecked bytes: [UInt8]) { self.bytes = bytes }
    public var description: String { hexString(bytes) }

    /// Comparison whose time does not depend on where the tokens differ.
    public func constantTimeEquals(_ other: ResumeToken) -> Bool {
        guard bytes.count == other.bytes.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<bytes.count { diff |= bytes[i] ^ other.bytes[i] }
        return diff == 0
    }
}

/// Moderator actions carried by floor-moderate (0x0B). On the wire: u8.
public enum FloorAction: UInt8, Sendable, CaseIterable {
    case grant = 1
    case withdraw = 2
    case reject = 3
    case kick = 4
    case dndOn = 5
    case dndOff = 6
}

/// Control signals (0x0C). Signal byte and u32 parameter on the wire.
public enum ControlSignal: Equatable, Sendable {
    case next   // 0x01
    case prev   // 0x02
    case goto(page: UInt32)   // 0x03, 1-based page
    case blank(white: Bool)   // 0xF0, parameter 0 black, 1 white
    case unblank   // 0xF1
    case handOver(to: DeviceID)   // 0xFD, parameter = device id
    case takeBack   // 0xFE: the holder (or moderator) ends a hand-over
    case returnFloor   // 0xFF: the temporary holder gives the floor back
    case transitions(fadeMs: UInt32)   // 0x10: the room's cross-fade for pages without /Trans (0 off)

    public var signalByte: UInt8 {
        switch self {
        case .next: 0x01
        case .prev: 0x02
        case .goto: 0x03
        case .blank: 0xF0
        case .unblank: 0xF1
        case .handOver: 0xFD
        case .takeBack: 0xFE
        case .returnFloor: 0xFF
        case .transitions: 0x10
        }
    }
    public var parameter: UInt32 {
        switch self {
        case .goto(let p): p
        case .blank(let white): white ? 1 : 0
        case .handOver(let id): UInt32(id)
        case .transitions(let ms): ms
        default: 0
        }
    }
    /// True for the signals that change the screen (as opposed to the floor).
    public var drivesScreen: Bool {
        switch self {
        case .next, .prev, .goto, .blank, .unblank: true
        case .handOver, .takeBack, .returnFloor, .transitions: false
        }
    }
    /// Parses signal + parameter; the error is the one to answer with.
    public static func parse(signal: UInt8, parameter: UInt32) throws(LecternError) -> ControlSignal {
        switch signal {
        case 0x01: return .next
        case 0x02: return .prev
        case 0x03: return .goto(page: parameter)
        case 0xF0: return .blank(white: parameter != 0)
        case 0xF1: return .unblank
        case 0xFD:
            // 0 (the server) and 255 (not registered) are no device's id either.
            guard parameter >= 1, parameter <= 254 else {
                throw .invalidTarget(detail: UInt64(parameter), "Hand-over needs a device id from 1 to 254.")
            }
            return .handOver(to: DeviceID(parameter))
        case 0xFE: return .takeBack
        case 0xFF: return .returnFloor
        case 0x10:
            guard parameter == 0 || ControlSignal.fadeRange.contains(parameter) else { throw .transitionOutOfRange }
            return .transitions(fadeMs: parameter)
        default: throw .unknownSignal(signal)
        }
    }
}

/// Why a device got the floor (floor-granted, 0x08). On the wire: u8.
public enum FloorGrantReason: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case requested = 1   // your request (open mode, or a moderator's own request)
    case granted = 2   // the moderator granted it
    case handedOver = 3   // the holder (or moderator) handed it to you for a while
    case returned = 4   // a hand-over ended: you drive the screen again
    case restored = 5   // you reconnected within the grace period
    case queueAdvanced = 6   // moderated room without a moderator: you were first in the queue
    public var description: String {
        switch self {
        case .requested: "requested"
        case .granted: "granted"
        case .handedOver: "handedOver"
        case .returned: "returned"
        case .restored: "restored"
        case .queueAdvanced: "queueAdvanced"
        }
    }
}

/// Why a device lost the floor or its place in the queue (floor-withdrawn, 0x09). u8.
public enum FloorLossReason: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case withdrawn = 2   // the moderator withdrew it
    case takenOver = 3   // open mode: someone newer asked for it
    case grantedToOther = 4   // the moderator granted it to someone else
    case handOverEnded = 5   // you held it on loan: the owner or moderator took it back, or lent it to another
    case ownerLostFloor = 6   // you held it on loan and the owner no longer has the floor
    case requestRejected = 7   // the moderator rejected your queued request
    public var description: String {
        switch self {
        case .withdrawn: "withdrawn"
        case .takenOver: "takenOver"
        case .grantedToOther: "grantedToOther"
        case .handOverEnded: "handOverEnded"
        case .ownerLostFloor: "ownerLostFloor"
        case .requestRejected: "requestRejected"
        }
    }
}

/// Device names: 1–64 bytes of UTF-8, no control characters (`isControl`).
public enum DeviceName {
    public static func isValid(_ name: String) -> Bool {
        let n = name.utf8.count
        guard n >= 1, n <= ProtocolLimits.maxDeviceNameBytes else { return false }
        return !name.unicodeScalars.contains(where: isControl)
    }

    /// "No control characters" (docs/protocol.md §2.4): a scalar of general category Cc
    /// (control), Cf (format: bidi overrides such as U+202E, zero-width space, BOM), Zl or
    /// Zp (line and paragraph separators), except U+200C and U+200D, the joiners emoji
    /// sequences and some scripts need.
    public static func isControl(_ s: Unicode.Scalar) -> Bool {
        if s.value == 0x200C || s.value == 0x200D { return false }
        switch s.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}

/// File names in upload-begin: 1–255 bytes of UTF-8, no control characters, no '/'.
public enum FileName {
    public static func isValid(_ name: String) -> Bool {
        let n = name.utf8.count
        guard n >= 1, n <= ProtocolLimits.maxFileNameBytes else { return false }
        return !name.unicodeScalars.contains { DeviceName.isControl($0) || $0 == "/" }
    }
}

extension ControlSignal {
    /// The cross-fade lengths signal 0x10 accepts, in milliseconds (0 turns it off).
    public static let fadeRange: ClosedRange<UInt32> = 50...2000
}
