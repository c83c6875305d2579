import Foundation
import LecternCore
import LecternDisplay
import LecternProtocol
import TOMLKit

/// The config file's schema: every key, its type, range and default (`Config`), the
/// relations between keys and the passcode rules. TOMLKit parses the text; the checks
/// here turn what it found into a `Config` and the problems, each with its line
/// (`LineLocator`) and, for an unknown key, a suggestion (ConfigKeySuggestion.swift).
extension ConfigFile {
    /// The passcode the installed default config carries (board/lectern.toml). Any passcode
    /// starting with it (case-insensitively) is refused, so a freshly installed appliance
    /// doesn't start with a passcode printed in the package until the admin sets one.
    public static let placeholderPasscode = "CHANGE-ME"

    /// Checks TOML text. Never throws: every problem is in the result.
    public static func parse(_ text: String) -> Result {
        var config = Config()
        var problems: [ConfigProblem] = []
        var warnings: [ConfigProblem] = []
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            return Result(config: config, problems: [ConfigProblem(line: e.source.begin.line, "TOML syntax: \(e.description)")], warnings: [])
        } catch {
            return Result(config: config, problems: [ConfigProblem(line: nil, "TOML syntax: \(error)")], warnings: [])
        }
        let lines = LineLocator(text)

        typealias Check = (TOMLValueConvertible, Int?) -> String?

        func check(_ t: TOMLTable, section: String?, keys: [String: Check]) {
            for (key, value) in t {
                let path = section.map { "\($0).\(key)" } ?? key
                let line = lines.line(of: path)
                guard let apply = keys[key] else {
                    problems.append(ConfigProblem(line: line, "unknown key '\(path)'\(suggestion(for: key, section: section))"))
                    continue
                }
                if let message = apply(value, line) { problems.append(ConfigProblem(line: line, message)) }
            }
        }

        func string(_ name: String, _ set: @escaping (String) -> String?) -> Check {
            { v, _ in
                guard let s = v.string else { return "'\(name)' must be a string, not \(describe(v))" }; return set(s)
            }
        }
        func int(_ name: String, _ range: ClosedRange<Int>, _ set: @escaping (Int) -> Void) -> Check {
            { v, _ in
                guard let i = v.int else {
                    if let d = v.double, d == d.rounded(), range.contains(Int(exactly: d) ?? .min) {
                        return "'\(name)' must be a whole number: write \(Int(d)), not \(d)"
                    }
                    return "'\(name)' must be a whole number, not \(describe(v))"
                }
                guard range.contains(i) else { return "'\(name)' must be from \(range.lowerBound) to \(range.upperBound), not \(i)" }
                set(i); return nil
            }
        }
        func number(_ name: String, _ range: ClosedRange<Double>, _ set: @escaping (Double) -> Void) -> Check {
            { v, _ in
                guard let d = v.double ?? v.int.map(Double.init) else { return "'\(name)' must be a number, not \(describe(v))" }
                guard range.contains(d) else { return "'\(name)' must be from \(format(range.lowerBound)) to \(format(range.upperBound)), not \(format(d))" }
                set(d); return nil
            }
        }

        var passcodeLine: Int?, moderatorLine: Int?, uploadLine: Int?, portLine: Int?, httpPortLine: Int?
        let display: [String: Check] = [
            "output": string("display.output") { s in
                guard DisplayChoice(rawValue: s) != nil else { return "'display.output' must be \"auto\", \"kms\" or \"virtual\", not '\(s)'" }
                config.display = s; return nil
            },
            "card": string("display.card") { s in
                guard s.isEmpty || isCardName(s) else {
                    return "'display.card' must be empty (the first card with a display connected), a name like \"card0\" or a path like \"/dev/dri/card0\", not '\(s)'"
                }
                config.card = s; return nil
            },
            "connector": string("display.connector") { s in
                guard s.isEmpty || isConnectorName(s) else {
                    return "'display.connector' must be empty (the first connected one) or a connector name like \"HDMI-A-1\", not '\(s)'"
                }
                config.connector = s; return nil
            },
            "mode": string("display.mode") { s in
                guard s.isEmpty || DisplayMode(parsing: s) != nil else {
                    return "'display.mode' must be empty (the display's preferred mode) or look like 1920x1080 or 1920x1080@60, not '\(s)'"
                }
                config.mode = s; return nil
            },
            "background": string("display.background") { s in
                guard let c = RGB(parsing: s) else { return "'display.background' must be \"#rrggbb\", \"#rgb\" or one of black, white, gray, navy, not '\(s)'" }
                config.background = c; return nil
            },
            "overscan": number("display.overscan", 0...25) { config.overscanPercent = $0 },
            "crossfade_ms": { v, _ in
                guard let i = v.int, i == 0 || (50...2000).contains(i) else {
                    return "'display.crossfade_ms' must be 0 (no cross-fade) or from 50 to 2000 milliseconds, not \(describe(v))"
                }
                config.crossfadeMs = i; return nil
            },
        ]
        let top: [String: Check] = [
            "room": string("room") { s in
                guard !s.trimmingCharacters(in: .whitespaces).isEmpty else { return "'room' must not be blank" }
                guard s.count <= 80, s.utf8.count <= ProtocolLimits.maxRoomNameBytes else {
                    return "'room' must be at most 80 characters (and \(ProtocolLimits.maxRoomNameBytes) bytes of UTF-8), not \(s.count)"
                }
                config.room = s; return nil
            },
            "port": { v, line in
                portLine = line; return int("port", 1...65535) { config.port = $0 }(v, line)
            },
            "http_port": { v, line in
                httpPortLine = line
                return int("http_port", 0...65535) { config.httpPort = $0 == 0 ? nil : $0 }(v, line)
            },
            "passcode": { v, line in
                passcodeLine = line
                guard let s = v.string else { return "'passcode' must be a string, not \(describe(v))" }
                config.passcode = s; return nil
            },
            "moderator_passcode": { v, line in
                moderatorLine = line
                guard let s = v.string else { return "'moderator_passcode' must be a string, not \(describe(v))" }
                config.moderatorPasscode = s; return nil
            },
            "audience": string("audience") { s in
                guard ["passcode", "open", "off"].contains(s) else { return "'audience' must be \"passcode\", \"open\" or \"off\", not '\(s)'" }
                config.audience = s; return nil
            },
            "audience_passcode": string("audience_passcode") { s in
                config.audiencePasscode = s; return nil
            },
            "audience_idle_minutes": int("audience_idle_minutes", 1...10080) { config.audienceIdleMinutes = $0 },
            "floor": string("floor") { s in
                guard let m = FloorMode(rawValue: s) else { return "'floor' must be \"open\" or \"moderated\", not '\(s)'" }
                config.floor = m; return nil
            },
            "data_dir": string("data_dir") { s in
                guard s.hasPrefix("/") else { return "'data_dir' must be an absolute path, not '\(s)'" }
                config.dataDir = s; return nil
            },
            "grace_period": number("grace_period", 0...3600) { config.gracePeriod = $0 },
            "remove_cooldown": number("remove_cooldown", 0...3600) { config.removeCooldown = $0 },
            "passcode_min_length": int("passcode_min_length", 4...128) { config.passcodeMinLength = $0 },
            "max_upload_mb": { v, line in
                uploadLine = line; return int("max_upload_mb", 1...65536) { config.maxUploadMB = $0 }(v, line)
            },
            "disk_quota_mb": int("disk_quota_mb", 1...(1 << 24)) { config.diskQuotaMB = $0 },
            "max_clients": int("max_clients", 1...254) { config.maxClients = $0 },
            "timer_warning_minutes": int("timer_warning_minutes", 0...120) { config.timerWarningMinutes = $0 },
            "wrap_around": { v, _ in
                guard let b = v.bool else { return "'wrap_around' must be true or false, not \(describe(v))" }
                config.wrapAround = b; return nil
            },
            "page_cache_mb": int("page_cache_mb", 0...4096) { config.pageCacheMB = $0 },
            "render_budget": number("render_budget", 0.5...60) { config.renderBudget = $0 },
            "render_memory_mb": int("render_memory_mb", 128...4096) { config.renderMemoryMB = $0 },
            "keepalive_timeout": number("keepalive_timeout", 2...300) { config.keepaliveTimeout = $0 },
            "max_connections": int("max_connections", 16...60000) { config.maxConnections = $0 },
            "max_connections_per_address": int("max_connections_per_address", 2...60000) { config.maxConnectionsPerAddress = $0 },
            "connections_reserved_for_devices": int("connections_reserved_for_devices", 0...60000) { config.connectionsReservedForDevices = $0 },
            "http_head_timeout": number("http_head_timeout", 1...120) { config.httpHeadTimeout = $0 },
            "http_idle_timeout": number("http_idle_timeout", 1...3600) { config.httpIdleTimeout = $0 },
            "audio_device": string("audio_device") { s in
                guard !s.isEmpty, s.count <= 128, s.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value < 0x7F }) else {
                    return "'audio_device' must be \"auto\", \"off\" or an ALSA device name (printable, no spaces, up to 128 characters), not '\(s)'"
                }
                config.audioDevice = s; return nil
            },
            "ink_everyone": { v, _ in
                guard let b = v.bool else { return "'ink_everyone' must be true or false, not \(describe(v))" }
                config.inkEveryone = b; return nil
            },
            "display": { v, _ in
                guard let t = v.table else {
                    return "'display' must be a table: a [display] section (the output is chosen with output = \"auto\", \"kms\" or \"virtual\" in it), not \(describe(v))"
                }
                check(t, section: "display", keys: display); return nil
            },
        ]
        check(table, section: nil, keys: top)

        // Relations between keys, once every key is known.
        if config.maxUploadMB > config.diskQuotaMB {
            problems.append(
                ConfigProblem(
                    line: uploadLine, "'max_upload_mb' (\(config.maxUploadMB)) is larger than 'disk_quota_mb' (\(config.diskQuotaMB)): an upload that size could never be stored"))
        }
        if config.connectionsReservedForDevices >= config.maxConnections {
            problems.append(
                ConfigProblem(
                    line: nil,
                    "'connections_reserved_for_devices' (\(config.connectionsReservedForDevices)) must be smaller than 'max_connections' (\(config.maxConnections)): nobody new could connect"
                ))
        }
        if config.port < 1024 {
            warnings.append(ConfigProblem(line: portLine, "'port' \(config.port) is below 1024: binding it needs CAP_NET_BIND_SERVICE, which the shipped unit does not grant"))
        }
        if let http = config.httpPort {
            if http == config.port {
                problems.append(ConfigProblem(line: httpPortLine, "'http_port' is the same as 'port' (\(http)): the web remote needs a port of its own (0: no web remote)"))
            } else if http < 1024 {
                warnings.append(
                    ConfigProblem(line: httpPortLine, "'http_port' \(http) is below 1024: binding it needs CAP_NET_BIND_SERVICE, which the shipped unit does not grant"))
            }
        }

        func checkPasscode(_ value: String, key: String, line: Int?, required: Bool) {
            if value.isEmpty {
                if required {
                    problems.append(
                        ConfigProblem(
                            line: line,
                            key == "moderator_passcode"
                                ? "'moderator_passcode' is empty but floor is \"moderated\": set one, or use floor = \"open\""
                                : "'passcode' is empty: nobody could connect"))
                }
                return
            }
            if isPlaceholder(value) {
                problems.append(
                    ConfigProblem(
                        line: line,
                        "'\(key)' is still the placeholder of the installed file: set the room's \(key == "passcode" ? "presenter" : "moderator") passcode (plain, or the hash `lectern hash-passcode` prints)"
                    ))
            } else if PasscodeHash.isHashForm(value) {
                do { _ = try PasscodeHash.parse(value) } catch { problems.append(ConfigProblem(line: line, "'\(key)' is not a valid hash: \(error)")) }
            } else if value.count < config.passcodeMinLength {
                problems.append(ConfigProblem(line: line, "'\(key)' is \(value.count) characters, shorter than passcode_min_length (\(config.passcodeMinLength))"))
            }
        }
        checkPasscode(config.passcode, key: "passcode", line: passcodeLine, required: true)
        checkPasscode(config.moderatorPasscode, key: "moderator_passcode", line: moderatorLine, required: config.floor == .moderated)
        if !config.passcode.isEmpty, config.passcode == config.moderatorPasscode, !isPlaceholder(config.passcode) {
            problems.append(ConfigProblem(line: moderatorLine, "'moderator_passcode' is the same as 'passcode': every presenter could moderate"))
        }
        return Result(config: config, problems: sortedByLine(problems), warnings: sortedByLine(warnings))
    }

    static func isPlaceholder(_ passcode: String) -> Bool {
        passcode.uppercased().hasPrefix(placeholderPasscode)
    }

    /// Stable: problems on the same line keep the order they were found in; problems
    /// without a line come first.
    static func sortedByLine(_ ps: [ConfigProblem]) -> [ConfigProblem] {
        ps.enumerated().sorted { a, b in
            let la = a.element.line ?? 0, lb = b.element.line ?? 0
            return la != lb ? la < lb : a.offset < b.offset
        }.map(\.element)
    }

    /// "a string ("…")", "an integer (5)": for "must be X, not Y" messages.
    static func describe(_ v: TOMLValueConvertible) -> String {
        switch v.type {
        case .string: return "a string (\"\(v.string ?? "")\")"
        case .int: return "an integer (\(v.int ?? 0))"
        case .double: return "a floating-point number (\(format(v.double ?? 0)))"
        case .bool: return "a boolean (\(v.bool ?? false))"
        case .array: return "an array"
        case .table: return "a table"
        default: return "a \(v.type)"
        }
    }

    static func format(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }

    static func isCardName(_ s: String) -> Bool {
        let name = s.hasPrefix("/dev/dri/") ? String(s.dropFirst("/dev/dri/".count)) : s
        guard name.hasPrefix("card") else { return false }
        let n = name.dropFirst(4)
        return !n.isEmpty && n.count <= 3 && n.allSatisfy(\.isASCII) && n.allSatisfy(\.isNumber)
    }

    static func isConnectorName(_ s: String) -> Bool {
        s.count <= 32 && s.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
    }

    /// Every key the file may have, for suggestions and docs/config.md.
    public static let topKeys = [
        "room", "port", "http_port", "passcode", "moderator_passcode", "audience", "audience_passcode", "audience_idle_minutes", "floor", "data_dir",
        "grace_period", "remove_cooldown", "passcode_min_length", "max_upload_mb", "disk_quota_mb",
        "max_clients", "timer_warning_minutes", "wrap_around", "page_cache_mb", "render_budget", "render_memory_mb", "keepalive_timeout", "max_connections",
        "max_connections_per_address",
        "connections_reserved_for_devices", "http_head_timeout", "http_idle_timeout", "audio_device", "ink_everyone", "display",
    ]
    public static let sectionKeys = ["display": ["output", "card", "connector", "mode", "background", "overscan", "crossfade_ms"]]
}
