import Foundation
import LecternModel

/// One key of the config file: one row of the table in ConfigTable.swift. It knows the
/// key's name and section, its TOML type and range, whether a reload applies it, one line
/// of doc, and the `Config` field it fills (whose initial value is its default). The
/// parser (ConfigSchema.swift), the reload policy (ConfigReload.swift), the suggestions
/// for typos and the drift test against docs/config.md all read the table; nothing else
/// names a key.
struct ConfigKey: Sendable {
    /// The TOML type as docs/config.md's "type" column names it.
    enum ValueType: String, Sendable {
        case string, integer, number, boolean
    }

    /// Whether a running service takes a new value at SIGHUP, or keeps its running one
    /// until the next restart (with a warning saying so).
    enum Reload: Sendable {
        case live, restart
    }

    /// nil: a top-level key; "display": a key of the `[display]` section.
    let section: String?
    let name: String
    let type: ValueType
    /// What docs/config.md's "range" column must say of it ("1–65535", "\"open\""): the
    /// drift test looks for each.
    let range: [String]
    let reload: Reload
    /// One line for whoever reads the table; docs/config.md has the whole story.
    let doc: String
    /// The key's value in a config as the file writes it (`7420`, `"Lectern"`; `""` for
    /// not set): with `Config()`, its default.
    let written: @Sendable (Config) -> String
    /// Reads the file's value into the config, or says what is wrong with it.
    let read: @Sendable (ConfigValue, inout Config) -> String?
    let differs: @Sendable (Config, Config) -> Bool
    let keep: @Sendable (inout Config, Config) -> Void

    /// As the file and the messages name it: `port`, `display.mode`.
    var path: String { section.map { "\($0).\(name)" } ?? name }
    /// The default, as the file would write it.
    var defaultText: String { written(Config()) }

    /// A key of field `field`: `parse` turns the file's value into the field's (or a
    /// problem's message), `write` the field's value back into the file's words.
    init<T: Equatable & Sendable>(
        _ path: String, _ field: WritableKeyPath<Config, T> & Sendable, type: ValueType, range: [String], _ doc: String, _ reload: Reload,
        write: @escaping @Sendable (T) -> String, parse: @escaping @Sendable (ConfigValue) -> Result<T, Problem>
    ) {
        let dot = path.firstIndex(of: ".")
        section = dot.map { String(path[..<$0]) }
        name = dot.map { String(path[path.index(after: $0)...]) } ?? path
        self.type = type
        self.range = range
        self.reload = reload
        self.doc = doc
        written = { write($0[keyPath: field]) }
        read = { value, config in
            switch parse(value) {
            case .success(let v):
                config[keyPath: field] = v
                return nil
            case .failure(let p): return p.message
            }
        }
        differs = { $0[keyPath: field] != $1[keyPath: field] }
        keep = { $0[keyPath: field] = $1[keyPath: field] }
    }

    /// What is wrong with a value, as the admin reads it after "line N: ".
    struct Problem: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}

// MARK: the kinds of rows

extension ConfigKey {
    /// A whole number in `range`.
    static func integer(
        _ path: String, _ field: WritableKeyPath<Config, Int> & Sendable, _ range: ClosedRange<Int>, _ doc: String, _ reload: Reload = .live
    ) -> ConfigKey {
        ConfigKey(
            path, field, type: .integer, range: ["\(range.lowerBound)–\(range.upperBound)"], doc, reload, write: { String($0) },
            parse: { wholeNumber(path, $0, range) })
    }

    /// A whole number in `range` that stands for something else in the field (`http_port = 0`: none).
    static func integer<T: Equatable & Sendable>(
        _ path: String, _ field: WritableKeyPath<Config, T> & Sendable, _ range: ClosedRange<Int>, _ doc: String, _ reload: Reload = .live,
        meaning: @escaping @Sendable (Int) -> T, written: @escaping @Sendable (T) -> Int
    ) -> ConfigKey {
        ConfigKey(
            path, field, type: .integer, range: ["\(range.lowerBound)–\(range.upperBound)"], doc, reload, write: { String(written($0)) },
            parse: { wholeNumber(path, $0, range).map(meaning) })
    }

    /// A number (an integer or a float) in `range`.
    static func number(
        _ path: String, _ field: WritableKeyPath<Config, Double> & Sendable, _ range: ClosedRange<Double>, _ doc: String, _ reload: Reload = .live
    ) -> ConfigKey {
        ConfigKey(
            path, field, type: .number, range: ["\(format(range.lowerBound))–\(format(range.upperBound))"], doc, reload, write: { format($0) },
            parse: { value in
                let d: Double
                switch value {
                case .float(let f): d = f
                case .integer(let i): d = Double(i)
                default: return .failure(Problem("'\(path)' must be a number, not \(value.described)"))
                }
                guard range.contains(d) else {
                    return .failure(Problem("'\(path)' must be from \(format(range.lowerBound)) to \(format(range.upperBound)), not \(format(d))"))
                }
                return .success(d)
            })
    }

    static func boolean(_ path: String, _ field: WritableKeyPath<Config, Bool> & Sendable, _ doc: String, _ reload: Reload = .live) -> ConfigKey {
        ConfigKey(
            path, field, type: .boolean, range: ["true", "false"], doc, reload, write: { String($0) },
            parse: { value in
                guard case .boolean(let b) = value else { return .failure(Problem("'\(path)' must be true or false, not \(value.described)")) }
                return .success(b)
            })
    }

    /// One of a few words, each meaning a value of the field.
    static func choice<T: Equatable & Sendable>(
        _ path: String, _ field: WritableKeyPath<Config, T> & Sendable, _ choices: [(word: String, value: T)], _ doc: String, _ reload: Reload = .live
    ) -> ConfigKey {
        let words = choices.map { "\"\($0.word)\"" }
        return ConfigKey(
            path, field, type: .string, range: words, doc, reload,
            write: { v in "\"\(choices.first { $0.value == v }?.word ?? "")\"" },
            parse: { value in
                guard case .string(let s) = value else { return .failure(Problem("'\(path)' must be a string, not \(value.described)")) }
                guard let c = choices.first(where: { $0.word == s }) else {
                    return .failure(Problem("'\(path)' must be \(spoken(words)), not '\(s)'"))
                }
                return .success(c.value)
            })
    }

    /// One of an enum's cases, each written as its raw value.
    static func choice<E: RawRepresentable & CaseIterable & Equatable & Sendable>(
        _ path: String, _ field: WritableKeyPath<Config, E> & Sendable, _ doc: String, _ reload: Reload = .live
    ) -> ConfigKey where E.RawValue == String {
        choice(path, field, E.allCases.map { ($0.rawValue, $0) }, doc, reload)
    }

    /// A string, read by `parse` (a problem's message, or the value).
    static func text<T: Equatable & Sendable>(
        _ path: String, _ field: WritableKeyPath<Config, T> & Sendable, range: [String], _ doc: String, _ reload: Reload = .live,
        written: @escaping @Sendable (T) -> String, parse: @escaping @Sendable (String) -> Result<T, Problem>
    ) -> ConfigKey {
        ConfigKey(
            path, field, type: .string, range: range, doc, reload, write: { "\"\(escaped(written($0)))\"" },
            parse: { value in
                guard case .string(let s) = value else { return .failure(Problem("'\(path)' must be a string, not \(value.described)")) }
                return parse(s)
            })
    }

    /// A string that may be left empty for "not set" (nil in the field); `check` says what
    /// is wrong with a non-empty one.
    static func optionalText<T: Equatable & Sendable>(
        _ path: String, _ field: WritableKeyPath<Config, T?> & Sendable, range: [String], _ doc: String, _ reload: Reload = .live,
        written: @escaping @Sendable (T) -> String, parse: @escaping @Sendable (String) -> Result<T, Problem>
    ) -> ConfigKey {
        text(path, field, range: range, doc, reload, written: { $0.map(written) ?? "" }) { s in
            s.isEmpty ? .success(nil) : parse(s).map { Optional($0) }
        }
    }

    /// An optional string kept as written.
    static func optionalText(
        _ path: String, _ field: WritableKeyPath<Config, String?> & Sendable, range: [String], _ doc: String, _ reload: Reload = .live,
        check: @escaping @Sendable (String) -> String? = { _ in nil }
    ) -> ConfigKey {
        optionalText(path, field, range: range, doc, reload, written: { $0 }) { s in
            check(s).map { .failure(Problem($0)) } ?? .success(s)
        }
    }
}

// MARK: words

extension ConfigKey {
    static func wholeNumber(_ path: String, _ value: ConfigValue, _ range: ClosedRange<Int>) -> Result<Int, Problem> {
        guard case .integer(let i) = value else {
            if case .float(let d) = value, d == d.rounded(), range.contains(Int(exactly: d) ?? .min) {
                return .failure(Problem("'\(path)' must be a whole number: write \(Int(d)), not \(d)"))
            }
            return .failure(Problem("'\(path)' must be a whole number, not \(value.described)"))
        }
        guard range.contains(i) else { return .failure(Problem("'\(path)' must be from \(range.lowerBound) to \(range.upperBound), not \(i)")) }
        return .success(i)
    }

    /// `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
    static func spoken(_ words: [String]) -> String {
        words.count <= 2 ? words.joined(separator: " or ") : words.dropLast().joined(separator: ", ") + " or " + words.last!
    }

    /// 60, not 60.0; 0.5 as it is.
    static func format(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }

    /// The inside of a TOML basic string.
    static func escaped(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

/// A value as the TOML file has it, before a key's row reads it.
enum ConfigValue: Sendable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    case table
    case array
    /// Dates and times: their TOML type's name.
    case other(String)

    /// "a string ("…")", "an integer (5)": for "must be X, not Y" messages.
    var described: String {
        switch self {
        case .string(let s): "a string (\"\(s)\")"
        case .integer(let i): "an integer (\(i))"
        case .float(let d): "a floating-point number (\(ConfigKey.format(d)))"
        case .boolean(let b): "a boolean (\(b))"
        case .array: "an array"
        case .table: "a table"
        case .other(let type): "a \(type)"
        }
    }
}
