import Foundation

/// A strict reader of Prometheus' text exposition format (0.0.4), for tests of
/// `/metrics`: every line is a `# HELP`, a `# TYPE` or a sample of a declared metric,
/// names and label names are valid, label values are quoted and escaped, values are
/// numbers; anything else throws with the line. (promtool checks it too, where the tests
/// have it; this gives the values.)
public struct PrometheusText {
    public struct Malformed: Error, CustomStringConvertible {
        public let line: Int
        public let text: String
        public let why: String
        public var description: String { "line \(line) (\(text)): \(why)" }
    }

    /// Sample values by `name{label="v",…}` as written (labels in their written order).
    public private(set) var samples: [String: Double] = [:]
    /// Metric family name → type.
    public private(set) var types: [String: String] = [:]

    public init(_ text: String) throws {
        var help: Set<String> = []
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw), n = i + 1
            func fail(_ why: String) -> Malformed { Malformed(line: n, text: line, why: why) }
            if line.isEmpty { continue }
            if line.hasPrefix("# HELP ") {
                let name = String(line.dropFirst(7).split(separator: " ", maxSplits: 1).first ?? "")
                guard Self.isName(name) else { throw fail("bad metric name in HELP") }
                guard help.insert(name).inserted else { throw fail("second HELP for \(name)") }
                continue
            }
            if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                guard parts.count == 2, Self.isName(String(parts[0])) else { throw fail("TYPE needs a name and a type") }
                guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[1]) else { throw fail("unknown type \(parts[1])") }
                guard types[String(parts[0])] == nil else { throw fail("second TYPE for \(parts[0])") }
                types[String(parts[0])] = String(parts[1])
                continue
            }
            if line.hasPrefix("#") { continue }
            // name{labels} value
            var rest = Substring(line)
            let nameEnd = rest.firstIndex { $0 == "{" || $0 == " " } ?? rest.endIndex
            let name = String(rest[..<nameEnd])
            guard Self.isName(name) else { throw fail("bad metric name '\(name)'") }
            rest = rest[nameEnd...]
            var key = name
            if rest.first == "{" {
                guard let close = Self.labelsEnd(rest) else { throw fail("unterminated labels") }
                let labels = rest[rest.index(after: rest.startIndex)..<close]
                try Self.checkLabels(labels, fail)
                key += "{" + labels + "}"
                rest = rest[rest.index(after: close)...]
            }
            guard rest.first == " " else { throw fail("no value") }
            let fields = rest.dropFirst().split(separator: " ")
            guard fields.count == 1 || fields.count == 2, let v = Self.number(String(fields[0])) else { throw fail("bad value") }
            if fields.count == 2 { guard Int64(fields[1]) != nil else { throw fail("bad timestamp") } }
            let family = Self.family(of: name, types)
            guard family != nil else { throw fail("sample of \(name) before its TYPE") }
            guard samples[key] == nil else { throw fail("duplicate sample \(key)") }
            samples[key] = v
        }
    }

    /// A sample's value: `value("lectern_devices", ["role": "presenter"])`.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        for (key, v) in samples {
            guard key == name || key.hasPrefix(name + "{") else { continue }
            let written = key == name ? [:] : Self.labelPairs(String(key.dropFirst(name.count + 1).dropLast()))
            if labels.allSatisfy({ written[$0.key] == $0.value }) && (labels.isEmpty ? written.isEmpty || key == name : true) { return v }
        }
        return nil
    }

    static func family(of sample: String, _ types: [String: String]) -> String? {
        if types[sample] != nil { return sample }
        for suffix in ["_bucket", "_sum", "_count"] where sample.hasSuffix(suffix) {
            let base = String(sample.dropLast(suffix.count))
            if let t = types[base], t == "histogram" || t == "summary" { return base }
        }
        return nil
    }

    static func isName(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first.properties.isAlphabetic || first == "_" || first == ":" else { return false }
        return s.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == ":") }
    }

    static func labelsEnd(_ s: Substring) -> String.Index? {
        var inQuote = false, escaped = false
        for i in s.indices {
            let c = s[i]
            if inQuote {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inQuote = false }
            } else if c == "\"" {
                inQuote = true
            } else if c == "}" {
                return i
            }
        }
        return nil
    }

    static func checkLabels(_ s: Substring, _ fail: (String) -> Malformed) throws {
        var rest = s
        while !rest.isEmpty {
            guard let eq = rest.firstIndex(of: "=") else { throw fail("label without =") }
            let name = String(rest[..<eq])
            guard isName(name), !name.contains(":") else { throw fail("bad label name '\(name)'") }
            rest = rest[rest.index(after: eq)...]
            guard rest.first == "\"" else { throw fail("label value not quoted") }
            rest = rest.dropFirst()
            var escaped = false, end: String.Index?
            for i in rest.indices {
                let c = rest[i]
                if escaped {
                    guard c == "\\" || c == "\"" || c == "n" else { throw fail("bad escape \\\(c)") }
                    escaped = false
                } else if c == "\\" {
                    escaped = true
                } else if c == "\"" {
                    end = i; break
                } else if c == "\n" {
                    throw fail("newline in a label value")
                }
            }
            guard let end else { throw fail("unterminated label value") }
            rest = rest[rest.index(after: end)...]
            if rest.first == "," { rest = rest.dropFirst() } else if !rest.isEmpty { throw fail("junk after a label value") }
        }
    }

    static func labelPairs(_ s: String) -> [String: String] {
        var out: [String: String] = [:]
        for pair in s.split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { out[String(kv[0])] = String(kv[1].dropFirst().dropLast()) }
        }
        return out
    }

    static func number(_ s: String) -> Double? {
        switch s {
        case "+Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default: return Double(s)
        }
    }
}
