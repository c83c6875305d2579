import Logging

/// Keeps the log readable under attack: lines that repeat — the same text, or the same
/// text with other numbers and other quoted names (a throttled guess from each address) —
/// are written at most `perWindow` times a `window`; the first line after a quiet window
/// says how many were left out. Pure: the caller passes the time.
struct LogLimiter: Equatable, Sendable {
    var perWindow = 10
    var window: Double = 60

    private struct Count: Equatable, Sendable {
        var start: Double
        var written: Int
        var suppressed: Int
    }
    private var counts: [String: Count] = [:]

    /// The lines to write for `line` at `now` (none while it is being left out).
    mutating func admit(_ line: String, now: Double) -> [String] {
        let key = Self.shape(line)
        var c = counts[key] ?? Count(start: now, written: 0, suppressed: 0)
        var out: [String] = []
        if now - c.start >= window {
            if c.suppressed > 0 { out.append("(\(c.suppressed) lines like the next were left out in the last \(Int(window)) s)") }
            c = Count(start: now, written: 0, suppressed: 0)
        }
        if c.written < perWindow {
            c.written += 1
            out.append(line)
        } else {
            c.suppressed += 1
        }
        counts[key] = c
        if counts.count > 1000 { counts = counts.filter { now - $0.value.start < window } }   // bounded
        return out
    }

    /// The line with its numbers and quoted names blanked: what "the same line" means.
    static func shape(_ line: String) -> String {
        var out = ""
        var inQuote = false
        var lastWasDigit = false
        for ch in line {
            if ch == "'" { inQuote.toggle(); out.append(ch); continue }
            if inQuote { continue }
            if ch.isNumber {
                if !lastWasDigit { out.append("#") }
                lastWasDigit = true
            } else {
                lastWasDigit = false
                out.append(ch)
            }
        }
        return out
    }
}

extension String {
    /// The text as one safe log line: control, format (bidi overrides, zero-width) and
    /// line-separator characters written as `\u{…}`, so a name can't forge or hide a line.
    var loggable: String {
        var out = ""
        for scalar in unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
