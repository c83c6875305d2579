import Foundation

extension ConfigFile {
    /// Finds the line a key is written on (TOMLKit doesn't report lines of values): one
    /// pass over the text that follows `[section]` headers, dotted keys and skips comments,
    /// multi-line strings and arrays well enough for a config file.
    struct LineLocator {
        private var lineOf: [String: Int] = [:]

        init(_ text: String) {
            // Lines are split on "\n" bytes, as TOML (and toml++'s line numbers) count them;
            // Swift's Character "\r\n" would otherwise hide CRLF line ends.
            let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                .map { String(decoding: $0, as: UTF8.self) }
            var section: [String] = []
            var inMultiline: String? = nil   // the closing delimiter we are waiting for
            var bracketDepth = 0   // inside a multi-line array value
            for (i, raw) in lines.enumerated() {
                let number = i + 1
                var l = raw.trimmingCharacters(in: .whitespacesAndNewlines)
                if let close = inMultiline {
                    if Self.count(close, in: l) % 2 == 1 { inMultiline = nil }
                    continue
                }
                if bracketDepth > 0 {
                    bracketDepth = max(0, bracketDepth + Self.bracketBalance(Self.stripComment(l)))
                    continue
                }
                l = Self.stripComment(l)
                if l.isEmpty { continue }
                if l.hasPrefix("[") {
                    let inner = l.trimmingCharacters(in: CharacterSet(charactersIn: "[] \t"))
                    section = Self.keyPath(inner)
                    let path = section.joined(separator: ".")
                    if lineOf[path] == nil { lineOf[path] = number }
                    continue
                }
                guard let eq = Self.assignment(l) else { continue }
                let keyText = String(l[l.startIndex..<eq])
                let value = String(l[l.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
                let path = (section + Self.keyPath(keyText)).joined(separator: ".")
                if lineOf[path] == nil { lineOf[path] = number }
                for delim in ["\"\"\"", "'''"] where value.hasPrefix(delim) {
                    if Self.count(delim, in: value) == 1 { inMultiline = delim }
                }
                if inMultiline == nil, value.hasPrefix("[") {
                    bracketDepth = max(0, Self.bracketBalance(value))
                }
            }
        }

        /// The line of `path` ("port", "display.mode"); for a key inside an inline table
        /// (`display = { mode = "…" }`) the line of the nearest enclosing key that has one.
        func line(of path: String) -> Int? {
            var parts = path.split(separator: ".").map(String.init)
            while !parts.isEmpty {
                if let n = lineOf[parts.joined(separator: ".")] { return n }
                parts.removeLast()
            }
            return nil
        }

        func line(of key: String, in section: String?) -> Int? {
            line(of: section.map { "\($0).\(key)" } ?? key)
        }

        /// Where the `=` of a `key = value` line is, when the text before it is a key.
        static func assignment(_ l: String) -> String.Index? {
            var quote: Character? = nil
            for i in l.indices {
                let c = l[i]
                if let q = quote { if c == q { quote = nil }; continue }
                if c == "\"" || c == "'" { quote = c; continue }
                if c == "=" { return i }
                if !(c.isLetter || c.isNumber || c == "_" || c == "-" || c == "." || c == " " || c == "\t") { return nil }
            }
            return nil
        }

        /// `a."b.c" . d` → ["a", "b.c", "d"].
        static func keyPath(_ s: String) -> [String] {
            var parts: [String] = [], current = "", quote: Character? = nil
            for c in s {
                if let q = quote { if c == q { quote = nil } else { current.append(c) }; continue }
                if c == "\"" || c == "'" { quote = c; continue }
                if c == "." { parts.append(current.trimmingCharacters(in: .whitespaces)); current = ""; continue }
                current.append(c)
            }
            parts.append(current.trimmingCharacters(in: .whitespaces))
            return parts
        }

        /// The line without a trailing `# comment` (a `#` inside a string is kept).
        static func stripComment(_ l: String) -> String {
            var quote: Character? = nil, escaped = false
            for i in l.indices {
                let c = l[i]
                if let q = quote {
                    if escaped { escaped = false } else if c == "\\" && q == "\"" { escaped = true } else if c == q { quote = nil }
                    continue
                }
                if c == "\"" || c == "'" { quote = c; continue }
                if c == "#" { return l[l.startIndex..<i].trimmingCharacters(in: .whitespaces) }
            }
            return l
        }

        static func bracketBalance(_ s: String) -> Int {
            var n = 0, quote: Character? = nil
            for c in s {
                if let q = quote { if c == q { quote = nil }; continue }
                if c == "\"" || c == "'" { quote = c } else if c == "[" { n += 1 } else if c == "]" { n -= 1 }
            }
            return n
        }

        static func count(_ needle: String, in s: String) -> Int {
            s.components(separatedBy: needle).count - 1
        }
    }
}
