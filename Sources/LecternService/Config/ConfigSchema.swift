import Foundation
import LecternModel
import TOMLKit

/// Reading the config file: TOMLKit parses the text of each file, the files are merged,
/// and each key is read by its row of the table (ConfigTable.swift) into a `Config`, with
/// every problem on its line (`LineLocator`) and, for an unknown key, a suggestion
/// (ConfigKeySuggestion.swift); then the rules between keys (ConfigRelations.swift).
extension ConfigFile {
    /// The passcode the installed default config carries (board/lectern.toml). Any passcode
    /// starting with it (case-insensitively) is refused, so a freshly installed appliance
    /// doesn't start with a passcode printed in the package until the admin sets one.
    public static let placeholderPasscode = "CHANGE-ME"

    /// One file of the config: its path (nil for text checked on its own) and its text.
    public struct Source: Sendable {
        public var path: String?
        public var text: String
        public init(path: String?, text: String) { self.path = path; self.text = text }
    }

    /// Checks TOML text. Never throws: every problem is in the result.
    public static func parse(_ text: String) -> Result {
        parse(sources: [Source(path: nil, text: text)])
    }

    /// Checks the main file and its drop-ins (`lectern.d/*.toml`, in name order) as one
    /// config: a key in a later file replaces the same key of an earlier one, a section
    /// (`[display]`) is merged key by key. Every problem names the file (and line) the
    /// offending key was last written in. Never throws.
    public static func parse(sources: [Source]) -> Result {
        var config = Config()
        var problems: [ConfigProblem] = []
        var warnings: [ConfigProblem] = []

        /// A key of the merged config: its value where it was last written; a section's keys.
        struct Entry {
            var value: TOMLValueConvertible
            var spot: Spot
            var children: [String: Entry]?
        }
        var merged: [(key: String, entry: Entry)] = []
        var tables: [TOMLTable] = []   // the parsed files, kept alive while their values are read
        for source in sources {
            let table: TOMLTable
            do {
                table = try TOMLTable(string: source.text)
            } catch let e as TOMLParseError {
                problems.append(ConfigProblem(line: e.source.begin.line, "TOML syntax: \(e.description)", file: source.path))
                continue
            } catch {
                problems.append(ConfigProblem(line: nil, "TOML syntax: \(error)", file: source.path))
                continue
            }
            tables.append(table)
            let lines = LineLocator(source.text)
            for (key, value) in table {
                let spot = Spot(file: source.path, line: lines.line(of: key))
                let index = merged.firstIndex { $0.key == key }
                var entry = Entry(value: value, spot: spot, children: nil)
                if let t = value.table {
                    var children = index.flatMap { merged[$0].entry.children } ?? [:]
                    for (k, v) in t { children[k] = Entry(value: v, spot: Spot(file: source.path, line: lines.line(of: "\(key).\(k)")), children: nil) }
                    entry.children = children
                }
                if let index { merged[index].entry = entry } else { merged.append((key, entry)) }
            }
        }
        // A file that isn't TOML: its keys can't be known, so the rest would only mislead.
        guard problems.isEmpty else { return Result(config: config, problems: problems, warnings: []) }

        // Each key by its row of the table (ConfigTable.swift); where it was written, for
        // the rules between keys.
        var spots: [String: Spot] = [:]
        func check(_ entries: [(key: String, entry: Entry)], section: String?) {
            for (key, entry) in entries {
                let path = section.map { "\($0).\(key)" } ?? key
                if section == nil, let shape = ConfigKey.sections[key] {
                    guard let children = entry.children else {
                        problems.append(problem(entry.spot, "'\(key)' must be a table: \(shape), not \(ConfigValue(entry.value).described)"))
                        continue
                    }
                    check(children.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, section: key)
                    continue
                }
                guard let row = ConfigKey.row[path] else {
                    problems.append(problem(entry.spot, "unknown key '\(path)'\(suggestion(for: key, section: section))"))
                    continue
                }
                spots[path] = entry.spot
                if let message = row.read(ConfigValue(entry.value), &config) { problems.append(problem(entry.spot, message)) }
            }
        }
        check(merged, section: nil)
        withExtendedLifetime(tables) {}

        let related = relations(config, at: spots)
        problems += related.problems
        warnings += related.warnings
        let files = sources.map(\.path)
        return Result(config: config, problems: sortedByLine(problems, files: files), warnings: sortedByLine(warnings, files: files))
    }

    /// Stable: problems on the same line keep the order they were found in; problems
    /// without a line come first; the main file's before the drop-ins', in name order.
    static func sortedByLine(_ ps: [ConfigProblem], files: [String?] = [nil]) -> [ConfigProblem] {
        func rank(_ p: ConfigProblem) -> Int { p.file.flatMap { f in files.firstIndex(of: f) } ?? -1 }
        return ps.enumerated().sorted { a, b in
            let fa = rank(a.element), fb = rank(b.element)
            if fa != fb { return fa < fb }
            let la = a.element.line ?? 0, lb = b.element.line ?? 0
            return la != lb ? la < lb : a.offset < b.offset
        }.map(\.element)
    }

    /// Every top-level key and section the file may have, for suggestions.
    public static var topKeys: [String] {
        ConfigKey.all.filter { $0.section == nil }.map(\.name) + ConfigKey.sections.keys.sorted()
    }
    /// Every key of each section.
    public static var sectionKeys: [String: [String]] {
        Dictionary(grouping: ConfigKey.all.filter { $0.section != nil }, by: { $0.section! }).mapValues { $0.map(\.name) }
    }
}

extension ConfigKey {
    /// The rows by path (`port`, `display.mode`).
    static let row: [String: ConfigKey] = Dictionary(uniqueKeysWithValues: all.map { ($0.path, $0) })
}

extension ConfigValue {
    init(_ v: TOMLValueConvertible) {
        switch v.type {
        case .string: self = .string(v.string ?? "")
        case .int: self = .integer(v.int ?? 0)
        case .double: self = .float(v.double ?? 0)
        case .bool: self = .boolean(v.bool ?? false)
        case .array: self = .array
        case .table: self = .table
        default: self = .other("\(v.type)")
        }
    }
}
