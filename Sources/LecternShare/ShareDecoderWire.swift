import LecternModel

/// What the service and a share's decoder process (`lecternd --share-decoder`) say to each
/// other, one message per datagram of a SOCK_SEQPACKET socket pair. Neither the encoded
/// picture nor the decoded one travels in a message: the encoded bytes are written into an
/// input memfd the process was started with (its descriptor 4), and each request comes with
/// the memfd of the frame to draw the newest picture into (`SharedFrame`), which the service
/// keeps as the pane's frame.
///
/// Pure: encoding and decoding only. Little-endian, fixed fields. The two sides are the same
/// binary, so there is no version negotiation.
public enum ShareDecoderWire {
    public enum Operation: UInt8, Sendable {
        /// Decode the `length` bytes at the start of the input, then draw the newest picture.
        case decode = 1
        /// Draw the newest picture again, at the frame's size (the pane changed size).
        case redraw = 2
        /// Decode the `length` bytes at the start of the input as an Opus packet of `codec`
        /// channels, into the memfd that comes with it (48 kHz stereo S16, `width` frames of
        /// room, `height` 1).
        case audio = 3
    }

    public struct Request: Equatable, Sendable {
        public var operation: Operation
        /// 1 H.264, 2 VP8, 3 VP9 (as share-begin's codec).
        public var codec: UInt8
        public var serial: UInt32
        /// A new generation (a new sender): a new decoder.
        public var generation: UInt32
        /// Bytes of the encoded picture at the start of the input memfd.
        public var length: UInt32
        public var width: Int
        public var height: Int
        public var background: RGB
        public init(
            operation: Operation, codec: UInt8, serial: UInt32, generation: UInt32, length: UInt32, width: Int, height: Int,
            background: RGB
        ) {
            self.operation = operation; self.codec = codec; self.serial = serial; self.generation = generation
            self.length = length; self.width = width; self.height = height; self.background = background
        }
        /// Bytes of the frame the memfd holds.
        public var byteCount: Int { width * 4 * height }
    }

    public enum Status: UInt8, Sendable {
        /// The newest picture is in the frame.
        case drawn = 0
        /// No picture came out (or none yet to redraw): the frame is untouched.
        case noPicture = 1
        /// The decoder failed on the stream (the message says how).
        case failed = 2
    }

    public struct Reply: Equatable, Sendable {
        public var serial: UInt32
        public var status: Status
        /// Sound frames written (an audio request).
        public var count: UInt32
        public var message: String
        public init(serial: UInt32, status: Status, count: UInt32 = 0, message: String = "") {
            self.serial = serial; self.status = status; self.count = count; self.message = message
        }
    }

    public struct Malformed: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Largest message either side sends or accepts (a reply's sentence).
    public static let maxMessage = 4096
    /// Largest frame side a request may ask for.
    public static let maxSide = 16384
    static let requestSize = 24

    public static func encode(_ r: Request) -> [UInt8] {
        var b: [UInt8] = [r.operation.rawValue, r.codec, 0, 0]
        put32(&b, r.serial); put32(&b, r.generation); put32(&b, r.length)
        put16(&b, UInt16(clamping: r.width)); put16(&b, UInt16(clamping: r.height))
        put32(&b, r.background.xrgb)
        return b
    }

    public static func decodeRequest(_ b: [UInt8]) throws -> Request {
        guard b.count == requestSize, let op = Operation(rawValue: b[0]) else { throw Malformed(description: "not a share decoder request") }
        let w = Int(get16(b, 16)), h = Int(get16(b, 18))
        guard (1...maxSide).contains(w), (1...maxSide).contains(h) else { throw Malformed(description: "a frame of \(w)×\(h)") }
        return Request(
            operation: op, codec: b[1], serial: get32(b, 4), generation: get32(b, 8), length: get32(b, 12), width: w, height: h,
            background: RGB(xrgb: get32(b, 20)))
    }

    public static func encode(_ r: Reply) -> [UInt8] {
        var b: [UInt8] = []
        put32(&b, r.serial)
        b.append(r.status.rawValue)
        put32(&b, r.count)
        b += Array(r.message.utf8.prefix(maxMessage - 9))
        return b
    }

    public static func decodeReply(_ b: [UInt8]) throws -> Reply {
        guard b.count >= 9, let status = Status(rawValue: b[4]) else { throw Malformed(description: "not a share decoder reply") }
        return Reply(serial: get32(b, 0), status: status, count: get32(b, 5), message: String(decoding: b[9...], as: UTF8.self))
    }

    private static func put16(_ b: inout [UInt8], _ v: UInt16) { b += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private static func put32(_ b: inout [UInt8], _ v: UInt32) { for i in 0..<4 { b.append(UInt8((v >> (8 * UInt32(i))) & 0xFF)) } }
    private static func get16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    private static func get32(_ b: [UInt8], _ i: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(b[i + $1]) << (8 * UInt32($1)) } }
}
