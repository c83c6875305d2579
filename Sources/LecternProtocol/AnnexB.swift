/// H.264 in Annex B (start codes), as share-frame carries it (docs/protocol.md §29.2): a
/// byte stream cut into access units — one picture each, with the SPS and PPS in front of a
/// key frame — and the picture size its SPS announces. For senders that read a raw stream
/// (`lectern share`); the service itself trusts none of it and lets the decoder judge.
public struct AnnexBSplitter {
    private var buffer: [UInt8] = []
    /// Where the access unit being collected starts in `buffer`, whether it has a picture
    /// yet, and where the search for the next start code goes on.
    private var unitStart: Int?
    private var unitHasSlice = false
    private var scanFrom = 0

    public init() {}

    /// One access unit: its bytes (start codes included), whether it holds an IDR picture.
    public struct Unit: Equatable, Sendable {
        public var bytes: [UInt8]
        public var key: Bool
    }

    /// Appends bytes read; returns the access units now complete.
    public mutating func feed(_ bytes: [UInt8]) -> [Unit] {
        buffer += bytes
        var out: [Unit] = []
        // NAL units start after 00 00 01 (or 00 00 00 01).
        var i = max(0, scanFrom)
        // A start code is looked at once the byte after its NAL header is in.
        while i + 4 < buffer.count {
            if buffer[i] == 0, buffer[i + 1] == 0, buffer[i + 2] == 1 {
                let start = i > 0 && buffer[i - 1] == 0 ? i - 1 : i
                let nal = buffer[i + 3]
                let type = nal & 0x1F
                if let u = unitStart, unitHasSlice, startsNewUnit(type: type, firstByteAfterHeader: buffer[i + 4]) {
                    out.append(Self.unit(Array(buffer[u..<start])))
                    unitStart = start
                    unitHasSlice = false
                }
                if unitStart == nil { unitStart = start }
                if type == 1 || type == 5 { unitHasSlice = true }
                i += 3
                continue
            }
            i += 1
        }
        scanFrom = i
        // Drop what was handed out.
        if let u = unitStart, u > 0 {
            buffer.removeFirst(u)
            scanFrom -= u
            unitStart = 0
        }
        return out
    }

    /// The last access unit, at the end of the stream.
    public mutating func finish() -> Unit? {
        defer { buffer = []; unitStart = nil; scanFrom = 0; unitHasSlice = false }
        guard let u = unitStart, u < buffer.count, unitHasSlice else { return nil }
        return Self.unit(Array(buffer[u...]))
    }

    /// A NAL of `type` opens a new access unit once the current one has a picture: an access
    /// unit delimiter, SEI, SPS, PPS, or a slice that is the first of its picture
    /// (first_mb_in_slice = 0: its first bit, ue(v) 0, is 1).
    private func startsNewUnit(type: UInt8, firstByteAfterHeader: UInt8) -> Bool {
        switch type {
        case 9, 6, 7, 8: return true
        case 1, 5: return firstByteAfterHeader & 0x80 != 0
        default: return false
        }
    }

    static func unit(_ bytes: [UInt8]) -> Unit {
        Unit(bytes: bytes, key: AnnexB.nalTypes(bytes).contains(5))
    }
}

public enum AnnexB {
    /// The NAL unit types in an Annex B run, in order.
    public static func nalTypes(_ b: [UInt8]) -> [UInt8] {
        var types: [UInt8] = []
        var i = 0
        while i + 3 < b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1 {
                types.append(b[i + 3] & 0x1F)
                i += 3
            } else {
                i += 1
            }
        }
        return types
    }

    /// The picture size the first SPS in `b` announces (cropping applied), if there is one.
    public static func pictureSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        var i = 0
        while i + 3 < b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1, b[i + 3] & 0x1F == 7 {
                var end = i + 4
                while end + 2 < b.count, !(b[end] == 0 && b[end + 1] == 0 && (b[end + 2] == 1 || b[end + 2] == 0)) { end += 1 }
                return try? spsSize(unescape(Array(b[(i + 4)..<min(b.count, max(i + 4, end + 2))])))
            }
            i += 1
        }
        return nil
    }

    /// The RBSP of a NAL (emulation prevention bytes 00 00 03 removed).
    static func unescape(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var zeros = 0
        for x in b {
            if zeros >= 2 && x == 3 {
                zeros = 0
                continue
            }
            zeros = x == 0 ? zeros + 1 : 0
            out.append(x)
        }
        return out
    }

    struct Bits {
        let b: [UInt8]
        var pos = 0
        mutating func bit() throws -> Int {
            guard pos / 8 < b.count else { throw WireError.truncated }
            defer { pos += 1 }
            return Int(b[pos / 8] >> (7 - UInt8(pos % 8)) & 1)
        }
        mutating func bits(_ n: Int) throws -> Int {
            var v = 0
            for _ in 0..<n { v = v << 1 | (try bit()) }
            return v
        }
        mutating func ue() throws -> Int {
            var zeros = 0
            while try bit() == 0 {
                zeros += 1
                guard zeros < 32 else { throw WireError.invalid("bad exp-Golomb code") }
            }
            return (1 << zeros) - 1 + (try bits(zeros))
        }
        mutating func se() throws -> Int {
            let k = try ue()
            return k % 2 == 1 ? (k + 1) / 2 : -(k / 2)
        }
    }

    /// Width and height from an SPS's RBSP (H.264 7.3.2.1.1).
    static func spsSize(_ rbsp: [UInt8]) throws -> (width: Int, height: Int) {
        var r = Bits(b: rbsp)
        let profile = try r.bits(8)
        _ = try r.bits(16)   // constraint flags, level
        _ = try r.ue()   // seq_parameter_set_id
        var chroma = 1
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            chroma = try r.ue()
            if chroma == 3 { _ = try r.bit() }
            _ = try r.ue(); _ = try r.ue()   // bit depths
            _ = try r.bit()
            if try r.bit() == 1 {   // seq_scaling_matrix_present_flag
                for i in 0..<(chroma == 3 ? 12 : 8) {
                    guard try r.bit() == 1 else { continue }
                    var last = 8, next = 8
                    for _ in 0..<(i < 6 ? 16 : 64) where next != 0 {
                        next = (last + (try r.se()) + 256) % 256
                        if next != 0 { last = next }
                    }
                }
            }
        }
        _ = try r.ue()   // log2_max_frame_num_minus4
        let pocType = try r.ue()
        if pocType == 0 {
            _ = try r.ue()
        } else if pocType == 1 {
            _ = try r.bit(); _ = try r.se(); _ = try r.se()
            let n = try r.ue()
            guard n < 256 else { throw WireError.invalid("too many reference frames in the cycle") }
            for _ in 0..<n { _ = try r.se() }
        }
        _ = try r.ue()   // max_num_ref_frames
        _ = try r.bit()
        let wMbs = try r.ue() + 1, hUnits = try r.ue() + 1
        let frameMbsOnly = try r.bit()
        if frameMbsOnly == 0 { _ = try r.bit() }
        _ = try r.bit()
        var w = wMbs * 16, h = hUnits * 16 * (2 - frameMbsOnly)
        if try r.bit() == 1 {
            let l = try r.ue(), rr = try r.ue(), t = try r.ue(), bb = try r.ue()
            let cx = chroma == 0 || chroma == 3 ? 1 : 2
            let cy = (chroma == 1 ? 2 : 1) * (2 - frameMbsOnly)
            w -= (l + rr) * cx
            h -= (t + bb) * cy
        }
        guard w > 0, h > 0 else { throw WireError.invalid("no picture size") }
        return (w, h)
    }
}
