import Foundation

/// Reading `state.json` back after a restart, part by part (docs/protocol.md §14.4): a
/// damaged file (cut short by a full disk, garbage, empty, one part of the wrong type)
/// loses only the parts that don't parse; every part that does is restored, and each
/// part lost is named with why. Pure: bytes in, the state and the losses out (the shell,
/// `StateWriter.load`, keeps a damaged file aside and logs the losses).
public enum SavedStateFile {
    /// One part of the saved state that could not be restored, and why.
    public struct Loss: Equatable, Sendable, CustomStringConvertible {
        public let part: String
        public let why: String
        public var description: String { "\(part): \(why)" }
    }

    public struct Loaded: Equatable, Sendable {
        /// What could be restored; nil when nothing could (or the file held nothing).
        public var state: SavedState?
        /// The parts lost, in the file's order; "file" when the file itself is damaged.
        public var lost: [Loss]
        /// The file is not what the service writes: keep it aside before it is overwritten.
        public var damaged: Bool { !lost.isEmpty }
    }

    /// The parts a state file holds (SavedState's keys); other keys are ignored (a later
    /// version's), not counted as damage.
    static let parts = ["content", "page", "blank", "holder", "clip", "sound", "timer", "audience", "ink", "whiteboards", "record", "meeting", "wall"]

    public static func read(_ data: Data) -> Loaded {
        var lost: [Loss] = []
        let (fields, failure) = TopLevelJSON.fields([UInt8](data))
        if let failure { lost.append(Loss(part: "file", why: failure)) }
        var s = SavedState()
        var restored = Set<String>()
        var seen = Set<String>()
        for (key, value) in fields where parts.contains(key) && !seen.contains(key) {
            seen.insert(key)
            do {
                switch key {
                case "content": s.content = try decode(String?.self, value)
                case "page": s.page = try decode(Int.self, value)
                case "blank": s.blank = try decode(String.self, value)
                case "holder": s.holder = try decode(SavedState.Holder?.self, value)
                case "clip": s.clip = try decode(SavedClip?.self, value)
                case "sound": s.sound = try decode(SavedSound?.self, value)
                case "timer": s.timer = try decode(TalkTimer?.self, value)
                case "audience": s.audience = try decode(AudienceSaved?.self, value)
                case "ink": s.ink = try decode(InkBoard.Saved?.self, value)
                case "whiteboards": s.whiteboards = try decode([Int]?.self, value)
                case "record": s.record = try decode(MeetingRecord?.self, value)
                case "meeting": s.meeting = try decode(Meeting?.self, value)
                case "wall": s.wall = try decode(SavedWall?.self, value)
                default: break
                }
                restored.insert(key)
            } catch {
                lost.append(Loss(part: key, why: why(error)))
            }
        }
        // A file cut before the screen's parts lost them too; without its page, the
        // content is not restored (the screen's parts go together).
        for key in ["page", "blank"] where !seen.contains(key) && failure != nil && !restored.isEmpty {
            lost.append(Loss(part: key, why: "not in the file (cut off before it)"))
        }
        if !restored.contains("page") { s.content = nil }
        return Loaded(state: restored.isEmpty ? nil : s, lost: lost)
    }

    /// A part decoded on its own (wrapped: a top-level number or string is a fragment).
    private struct Box<T: Decodable>: Decodable { let v: T }
    private static func decode<T: Decodable>(_ type: T.Type, _ value: ArraySlice<UInt8>) throws -> T {
        try JSONDecoder().decode(Box<T>.self, from: Data(Array("{\"v\":".utf8) + value + Array("}".utf8))).v
    }

    private static func why(_ error: Error) -> String {
        switch error {
        case DecodingError.typeMismatch(let t, let c): return "\(t) expected\(path(c))"
        case DecodingError.valueNotFound(let t, let c): return "\(t) missing\(path(c))"
        case DecodingError.keyNotFound(let k, let c): return "'\(k.stringValue)' missing\(path(c))"
        case DecodingError.dataCorrupted(let c): return "\(c.debugDescription)\(path(c))"
        default: return "\(error)"
        }
    }

    private static func path(_ c: DecodingError.Context) -> String {
        let keys = c.codingPath.dropFirst().map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return keys.isEmpty ? "" : " at \(keys.hasPrefix(".") ? String(keys.dropFirst()) : keys)"
    }
}

/// The top level of a JSON object, key by key, without parsing the values: each value's
/// bytes, so that a value that doesn't parse (or a file cut in the middle of one) costs
/// only that value. Stops at the first byte that can't be the object's next part.
enum TopLevelJSON {
    /// The complete `"key": value` pairs in order, and what stopped the scan (nil: the
    /// whole object was read).
    static func fields(_ b: [UInt8]) -> (fields: [(String, ArraySlice<UInt8>)], failure: String?) {
        var i = 0
        var out: [(String, ArraySlice<UInt8>)] = []
        func skip() { while i < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[i]) { i += 1 } }
        func fail(_ what: String) -> (fields: [(String, ArraySlice<UInt8>)], failure: String?) {
            (out, i >= b.count ? (b.isEmpty ? "the file is empty" : "the file ends at byte \(b.count), \(what)") : "\(what) at byte \(i)")
        }
        skip()
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return fail("not a JSON object") }
        i += 1
        skip()
        if i < b.count, b[i] == UInt8(ascii: "}") { return (out, nil) }
        while true {
            skip()
            let keyStart = i
            guard let keyEnd = valueEnd(b, from: i), b[keyStart] == UInt8(ascii: "\"") else {
                // A key the end of the file cuts through is a cut, not a wrong byte.
                let cutKey = i < b.count && b[i] == UInt8(ascii: "\"")
                return cutKey ? (out, "the file ends at byte \(b.count), inside a key") : fail("a key expected")
            }
            guard let key = try? JSONDecoder().decode([String].self, from: Data(Array("[".utf8) + b[keyStart..<keyEnd] + Array("]".utf8))).first
            else { return fail("a key expected") }
            i = keyEnd
            skip()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return fail("':' expected") }
            i += 1
            skip()
            guard let end = valueEnd(b, from: i) else {
                let starts = i < b.count && ![UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ",")].contains(b[i])
                return starts
                    ? (out, "the file ends at byte \(b.count), inside the value of '\(key)'") : fail("a value expected for '\(key)'")
            }
            let valueStart = i
            i = end
            skip()
            out.append((key, b[valueStart..<end]))
            guard i < b.count, b[i] == UInt8(ascii: ",") || b[i] == UInt8(ascii: "}") else { return fail("',' or '}' expected after '\(key)'") }
            if b[i] == UInt8(ascii: "}") { return (out, nil) }
            i += 1
        }
    }

    /// Where the JSON value starting at `start` ends (one past it), by its brackets and
    /// strings; nil if it doesn't end within `b` or doesn't start like a value. The
    /// value's own syntax is checked when it is decoded.
    static func valueEnd(_ b: [UInt8], from start: Int) -> Int? {
        guard start < b.count else { return nil }
        var i = start
        var depth = 0
        var inString = false
        while i < b.count {
            let c = b[i]
            if inString {
                if c == UInt8(ascii: "\\") { i += 2; continue }
                if c == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return i + 1 }
                }
                i += 1
                continue
            }
            switch c {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return i == start ? nil : i }
                depth -= 1
                if depth == 0 { return i + 1 }
            case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
                if depth == 0 { return i == start ? nil : i }
            default: break
            }
            i += 1
        }
        // A bare number or literal that ends the file is not cut only if the object closes after it: it doesn't.
        return nil
    }
}
