import Foundation
import LecternCore
import LecternProtocol
import TOMLKit

/// Reads `lectern.toml` through TOMLKit and checks every key: unknown keys (typos), wrong
/// types, out-of-range values, short passcodes, an empty moderator passcode in moderated
/// mode. Every problem comes back with its line, all at once, so an admin fixes the file
/// in one go (`lecternd --check-config`).
public enum ConfigFile {
    public struct Result: Sendable {
        public var config: Config
        public var problems: [ConfigProblem]
        public var warnings: [ConfigProblem]
        public var isValid: Bool { problems.isEmpty }
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let path: String
        public let problems: [ConfigProblem]
        public var description: String {
            "\(path) is not valid:\n" + problems.map { "  \($0)" }.joined(separator: "\n")
        }
    }

    /// Reads and checks the file at `path`; throws `Invalid` listing every problem.
    public static func load(path: String) throws -> Result {
        guard let data = FileManager.default.contents(atPath: path) else {
            let why = FileManager.default.fileExists(atPath: path) ? "can't be read (permissions?)" : "does not exist"
            throw Invalid(path: path, problems: [ConfigProblem(line: nil, "the config file \(why)")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Invalid(path: path, problems: [ConfigProblem(line: nil, "the file is not UTF-8 text")])
        }
        var result = parse(text)
        if let attrs = try? FileManager.default.attributesOfItem(atPath: path),
           let perms = (attrs[.posixPermissions] as? NSNumber)?.intValue, perms & 0o004 != 0 {
            result.warnings.append(ConfigProblem(line: nil, "\(path) is readable by every user and holds the passcodes: chmod 640 it (owner root, group lectern)"))
        }
        guard result.isValid else { throw Invalid(path: path, problems: result.problems) }
        return result
    }

    /// Checks TOML text. Never throws: every problem is in the result.
    public static func parse(_ text: String) -> Result {
        var config = Config()
        var problems: [ConfigProblem] = []
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            return Result(config: config, problems: [ConfigProblem(line: e.source.begin.line, "TOML syntax: \(e.description)")], warnings: [])
        } catch {
            return Result(config: config, problems: [ConfigProblem(line: nil, "TOML syntax: \(error)")], warnings: [])
        }
        let lines = LineLocator(text)

        func check(_ t: TOMLTable, section: String?, keys: [String: (TOMLValueConvertible, Int?) -> String?]) {
            for (key, value) in t {
                let line = lines.line(of: key, in: section)
                guard let apply = keys[key] else {
                    let known = keys.keys.sorted()
                    let hint = known.min(by: { editDistance($0, key) < editDistance($1, key) })
                        .flatMap { editDistance($0, key) <= 3 ? " (did you mean '\($0)'?)" : nil } ?? ""
                    problems.append(ConfigProblem(line: line, "unknown key '\(section.map { "\($0)." } ?? "")\(key)'\(hint)"))
                    continue
                }
                if let message = apply(value, line) { problems.append(ConfigProblem(line: line, message)) }
            }
        }

        func string(_ name: String, _ set: @escaping (String) -> String?) -> (TOMLValueConvertible, Int?) -> String? {
            { v, _ in guard let s = v.string else { return "'\(name)' must be a string, not \(v.type)" }; return set(s) }
        }
        func int(_ name: String, _ range: ClosedRange<Int>, _ set: @escaping (Int) -> Void) -> (TOMLValueConvertible, Int?) -> String? {
            { v, _ in
                guard let i = v.int else { return "'\(name)' must be a whole number, not \(v.type)" }
                guard range.contains(i) else { return "'\(name)' must be \(range.lowerBound)–\(range.upperBound), not \(i)" }
                set(i); return nil
            }
        }
        func number(_ name: String, _ range: ClosedRange<Double>, _ set: @escaping (Double) -> Void) -> (TOMLValueConvertible, Int?) -> String? {
            { v, _ in
                guard let d = v.double ?? v.int.map(Double.init) else { return "'\(name)' must be a number, not \(v.type)" }
                guard range.contains(d) else { return "'\(name)' must be \(range.lowerBound)–\(range.upperBound), not \(d)" }
                set(d); return nil
            }
        }

        var passcodeLine: Int?, moderatorLine: Int?
        let display: [String: (TOMLValueConvertible, Int?) -> String?] = [
            "output": string("display.output") { s in
                guard ["auto", "kms", "virtual"].contains(s) else { return "'display.output' must be auto, kms or virtual, not '\(s)'" }
                config.display = s; return nil
            },
            "card": string("display.card") { s in config.card = s; return nil },
            "connector": string("display.connector") { s in config.connector = s; return nil },
            "mode": string("display.mode") { s in
                guard s.isEmpty || DisplayMode(parsing: s) != nil else { return "'display.mode' must look like 1920x1080 or 1920x1080@60, not '\(s)'" }
                config.mode = s; return nil
            },
            "background": string("display.background") { s in
                guard let c = RGB(parsing: s) else { return "'display.background' must be #rrggbb or a colour name, not '\(s)'" }
                config.background = c; return nil
            },
            "overscan": number("display.overscan", 0...25) { config.overscanPercent = $0 },
        ]
        let top: [String: (TOMLValueConvertible, Int?) -> String?] = [
            "room": string("room") { s in
                guard !s.trimmingCharacters(in: .whitespaces).isEmpty, s.count <= 80 else { return "'room' must be 1–80 characters" }
                config.room = s; return nil
            },
            "port": int("port", 1...65535) { config.port = $0 },
            "passcode": { v, line in passcodeLine = line; guard let s = v.string else { return "'passcode' must be a string, not \(v.type)" }; config.passcode = s; return nil },
            "moderator_passcode": { v, line in moderatorLine = line; guard let s = v.string else { return "'moderator_passcode' must be a string, not \(v.type)" }; config.moderatorPasscode = s; return nil },
            "floor": string("floor") { s in
                guard let m = Config.FloorMode(rawValue: s) else { return "'floor' must be \"open\" or \"moderated\", not '\(s)'" }
                config.floor = m; return nil
            },
            "data_dir": string("data_dir") { s in
                guard s.hasPrefix("/") else { return "'data_dir' must be an absolute path, not '\(s)'" }
                config.dataDir = s; return nil
            },
            "grace_period": number("grace_period", 0...3600) { config.gracePeriod = $0 },
            "passcode_min_length": int("passcode_min_length", 4...128) { config.passcodeMinLength = $0 },
            "max_upload_mb": int("max_upload_mb", 1...65536) { config.maxUploadMB = $0 },
            "disk_quota_mb": int("disk_quota_mb", 1...(1 << 24)) { config.diskQuotaMB = $0 },
            "max_clients": int("max_clients", 1...254) { config.maxClients = $0 },
            "page_cache_mb": int("page_cache_mb", 0...4096) { config.pageCacheMB = $0 },
            "keepalive_timeout": number("keepalive_timeout", 2...300) { config.keepaliveTimeout = $0 },
            "display": { v, _ in
                guard let t = v.table else { return "'display' must be a table ([display])" }
                check(t, section: "display", keys: display); return nil
            },
        ]
        check(table, section: nil, keys: top)

        // Passcodes, once everything else is known.
        func checkPasscode(_ value: String, key: String, line: Int?, required: Bool) {
            if value.isEmpty {
                if required { problems.append(ConfigProblem(line: line, "'\(key)' is empty\(key == "moderator_passcode" ? " but floor is \"moderated\": set one, or use floor = \"open\"" : ": nobody could connect")")) }
                return
            }
            if PasscodeHash.isHashForm(value) {
                do { _ = try PasscodeHash.parse(value) } catch { problems.append(ConfigProblem(line: line, "'\(key)' is not a valid hash: \(error)")) }
            } else if value.count < config.passcodeMinLength {
                problems.append(ConfigProblem(line: line, "'\(key)' is shorter than passcode_min_length (\(config.passcodeMinLength) characters)"))
            }
        }
        checkPasscode(config.passcode, key: "passcode", line: passcodeLine, required: true)
        checkPasscode(config.moderatorPasscode, key: "moderator_passcode", line: moderatorLine, required: config.floor == .moderated)
        if !config.passcode.isEmpty, config.passcode == config.moderatorPasscode {
            problems.append(ConfigProblem(line: moderatorLine, "'moderator_passcode' is the same as 'passcode': every presenter could moderate"))
        }
        problems.sort { ($0.line ?? 0) < ($1.line ?? 0) }
        return Result(config: config, problems: problems, warnings: [])
    }

    /// Finds the line a key is written on (TOMLKit doesn't report lines of values).
    struct LineLocator {
        let lines: [Substring]
        init(_ text: String) { lines = text.split(separator: "\n", omittingEmptySubsequences: false) }

        func line(of key: String, in section: String?) -> Int? {
            var current: String? = nil
            for (i, raw) in lines.enumerated() {
                let l = raw.trimmingCharacters(in: .whitespaces)
                if l.hasPrefix("[") {
                    current = l.trimmingCharacters(in: CharacterSet(charactersIn: "[] ")).trimmingCharacters(in: .whitespaces)
                    if section == nil && current == key { return i + 1 }
                    continue
                }
                guard current == section else { continue }
                let name = l.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: CharacterSet(charactersIn: " \"'")) ?? ""
                if name == key { return i + 1 }
            }
            return nil
        }
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var prev = Array(0...b.count)
        for i in 1...a.count {
            var cur = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }
}
