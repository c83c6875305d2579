import Foundation
import LecternCore
import LecternDisplay
import LecternProtocol
import LecternRender
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
        withExtendedLifetime(tables) {}

        typealias Check = (TOMLValueConvertible, Spot) -> String?

        func check(_ entries: [(key: String, entry: Entry)], section: String?, keys: [String: Check]) {
            for (key, entry) in entries {
                let path = section.map { "\($0).\(key)" } ?? key
                guard let apply = keys[key] else {
                    problems.append(problem(entry.spot, "unknown key '\(path)'\(suggestion(for: key, section: section))"))
                    continue
                }
                if let message = apply(entry.value, entry.spot) { problems.append(problem(entry.spot, message)) }
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

        var spots = RelatedSpots()
        // [convert]: uploads converted to PDF on the appliance (docs/protocol.md §30).
        func flag(_ name: String, _ set: @escaping (Bool) -> Void) -> Check {
            { v, _ in
                guard let b = v.bool else { return "'\(name)' must be true or false, not \(describe(v))" }
                set(b); return nil
            }
        }
        let convert: [String: Check] = [
            "office": flag("convert.office") { config.convert.office = $0 },
            "timeout_seconds": int("convert.timeout_seconds", 5...600) { config.convert.timeoutSeconds = $0 },
            "at_once": int("convert.at_once", 1...4) { config.convert.atOnce = $0 },
            "queue": int("convert.queue", 0...64) { config.convert.queue = $0 },
            "memory_mb": int("convert.memory_mb", 256...8192) { config.convert.memoryMB = $0 },
            "max_pages": int("convert.max_pages", 1...5000) { config.convert.maxPages = $0 },
            "max_unpacked_mb": int("convert.max_unpacked_mb", 1...4096) { config.convert.maxUnpackedMB = $0 },
            "warm": flag("convert.warm") { config.convert.warm = $0 },
            // photos and images (docs/protocol.md §30.9)
            "image_max_megapixels": int("convert.image_max_megapixels", 1...1000) { config.convert.imageMaxMegapixels = $0 },
            "image_memory_mb": int("convert.image_memory_mb", 64...4096) { config.convert.imageMemoryMB = $0 },
            "image_cpu_seconds": int("convert.image_cpu_seconds", 1...300) { config.convert.imageCPUSeconds = $0 },
            "image_max_count": int("convert.image_max_count", 2...500) { config.convert.imageMaxCount = $0 },
        ]
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
            "accent": string("display.accent") { s in
                guard s.isEmpty || RGB(parsing: s) != nil else { return "'display.accent' must be empty or \"#rrggbb\", \"#rgb\" or one of black, white, gray, navy, not '\(s)'" }
                config.accent = s.isEmpty ? nil : RGB(parsing: s); return nil
            },
            "logo": string("display.logo") { s in
                guard !s.isEmpty else { config.logo = ""; return nil }
                guard s.hasPrefix("/") else { return "'display.logo' must be an absolute path to a PNG or SVG file, not '\(s)'" }
                if let why = IdleLogo.problem(path: s) { return "'display.logo' (\(s)) \(why)" }
                config.logo = s; return nil
            },
            "background_image": string("display.background_image") { s in
                guard !s.isEmpty else { config.backgroundImage = ""; return nil }
                guard s.hasPrefix("/") else { return "'display.background_image' must be an absolute path to a PNG or SVG file, not '\(s)'" }
                if let why = IdleLogo.problem(path: s) { return "'display.background_image' (\(s)) \(why)" }
                config.backgroundImage = s; return nil
            },
        ]
        let share: [String: Check] = [
            "max_resolution": string("share.max_resolution") { s in
                let p = s.split(separator: "x").compactMap { Int($0) }
                guard p.count == 2, p.allSatisfy({ (16...1920).contains($0) }), p[0] * p[1] <= 1920 * 1200 else {
                    return "'share.max_resolution' must look like \"1920x1200\": each side 16–1920, at most 1920×1200 pixels in all, not '\(s)'"
                }
                (config.share.maxWidth, config.share.maxHeight) = (p[0], p[1]); return nil
            },
            "max_frame_rate": int("share.max_frame_rate", 1...60) { config.share.maxFrameRate = $0 },
            "max_bitrate_kbps": int("share.max_bitrate_kbps", 100...20000) { config.share.maxBitrateKbps = $0 },
            "max_queued_kb": int("share.max_queued_kb", 256...16384) { config.share.maxQueuedKB = $0 },
            "decoder_memory_mb": int("share.decoder_memory_mb", 64...4096) { config.share.decoderMemoryMB = $0 },
            "stall_seconds": number("share.stall_seconds", 0.5...30) { config.share.stallSeconds = $0 },
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
                spots.port = line; return int("port", 1...65535) { config.port = $0 }(v, line)
            },
            "http_port": { v, line in
                spots.httpPort = line
                return int("http_port", 0...65535) { config.httpPort = $0 == 0 ? nil : $0 }(v, line)
            },
            "passcode": { v, line in
                spots.passcode = line
                guard let s = v.string else { return "'passcode' must be a string, not \(describe(v))" }
                config.passcode = s; return nil
            },
            "moderator_passcode": { v, line in
                spots.moderator = line
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
            "uploads_kept": string("uploads_kept") { s in
                guard s == "meeting" || s == "day" else { return "'uploads_kept' must be \"meeting\" or \"day\", not '\(s)'" }
                config.uploadsKept = s; return nil
            },
            "audience_new_per_address": int("audience_new_per_address", 1...1000) { config.audienceNewPerAddress = $0 },
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
                spots.upload = line; return int("max_upload_mb", 1...65536) { config.maxUploadMB = $0 }(v, line)
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
            "record": string("record") { s in
                guard s == "on" || s == "off" else { return "'record' must be \"on\" or \"off\", not '\(s)'" }
                config.record = s == "on"; return nil
            },
            "record_presenters": { v, _ in
                guard let b = v.bool else { return "'record_presenters' must be true or false, not \(describe(v))" }
                config.recordPresenters = b; return nil
            },
            "ink_everyone": { v, _ in
                guard let b = v.bool else { return "'ink_everyone' must be true or false, not \(describe(v))" }
                config.inkEveryone = b; return nil
            },
            "screen_code": { v, line in
                spots.screenCode = line
                guard let b = v.bool else { return "'screen_code' must be true or false, not \(describe(v))" }
                config.screenCode = b; return nil
            },
            "screen_code_minutes": int("screen_code_minutes", 1...1440) { config.screenCodeMinutes = $0 },
            "wifi_ssid": string("wifi_ssid") { s in
                guard s.utf8.count <= 32 else { return "'wifi_ssid' must be at most 32 bytes (a Wi-Fi network name), not \(s.utf8.count)" }
                config.wifiSSID = s; return nil
            },
            "wifi_password": string("wifi_password") { s in
                guard s.isEmpty || (8...63).contains(s.utf8.count) else {
                    return "'wifi_password' must be empty (an open network) or a WPA passphrase of 8 to 63 bytes, not \(s.utf8.count)"
                }
                config.wifiPassword = s; return nil
            },
            "tls": { v, line in
                spots.tls = line
                guard let b = v.bool else { return "'tls' must be true or false, not \(describe(v))" }
                config.tls = b; return nil
            },
            "tls_certificate": { v, line in
                spots.certificate = line
                return string("tls_certificate") { s in
                    guard s.isEmpty || s.hasPrefix("/") else { return "'tls_certificate' must be empty (a self-signed certificate) or an absolute path to a PEM file, not '\(s)'" }
                    guard s.isEmpty || FileManager.default.isReadableFile(atPath: s) else { return "'tls_certificate' (\(s)) can't be read" }
                    config.tlsCertificate = s; return nil
                }(v, line)
            },
            "tls_key": { v, line in
                spots.key = line
                return string("tls_key") { s in
                    guard s.isEmpty || s.hasPrefix("/") else { return "'tls_key' must be empty or an absolute path to a PEM private key, not '\(s)'" }
                    guard s.isEmpty || FileManager.default.isReadableFile(atPath: s) else {
                        return "'tls_key' (\(s)) can't be read (lecternd runs as the lectern user: chown lectern, chmod 600)"
                    }
                    config.tlsKey = s; return nil
                }(v, line)
            },
            "allow_plain": { v, _ in
                guard let b = v.bool else { return "'allow_plain' must be true or false, not \(describe(v))" }
                config.allowPlain = b; return nil
            },
            "metrics_address": string("metrics_address") { s in
                guard s.isEmpty || MetricsServer.parse(address: s) != nil else {
                    return "'metrics_address' must be empty (no metrics) or HOST:PORT like \"127.0.0.1:9420\" or \"[::1]:9420\", not '\(s)'"
                }
                config.metricsAddress = s; return nil
            },
            "convert": { v, _ in
                guard v.table != nil, let children = merged.first(where: { $0.key == "convert" })?.entry.children else {
                    return "'convert' must be a table: a [convert] section, not \(describe(v))"
                }
                check(children.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, section: "convert", keys: convert); return nil
            },
            "display": { v, _ in
                guard v.table != nil, let children = merged.first(where: { $0.key == "display" })?.entry.children else {
                    return "'display' must be a table: a [display] section (the output is chosen with output = \"auto\", \"kms\" or \"virtual\" in it), not \(describe(v))"
                }
                check(children.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, section: "display", keys: display); return nil
            },
            "share": { v, _ in
                guard v.table != nil, let children = merged.first(where: { $0.key == "share" })?.entry.children else {
                    return "'share' must be a table: a [share] section, not \(describe(v))"
                }
                check(children.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, section: "share", keys: share); return nil
            },
        ]
        check(merged, section: nil, keys: top)

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
        "room", "port", "http_port", "passcode", "moderator_passcode", "audience", "audience_passcode", "audience_idle_minutes", "uploads_kept", "audience_new_per_address",
        "floor", "data_dir",
        "grace_period", "remove_cooldown", "passcode_min_length", "max_upload_mb", "disk_quota_mb",
        "max_clients", "timer_warning_minutes", "wrap_around", "page_cache_mb", "render_budget", "render_memory_mb", "keepalive_timeout", "max_connections",
        "max_connections_per_address",
        "connections_reserved_for_devices", "http_head_timeout", "http_idle_timeout", "audio_device", "ink_everyone", "record", "record_presenters", "metrics_address",
        "screen_code", "screen_code_minutes", "wifi_ssid", "wifi_password", "tls", "tls_certificate", "tls_key", "allow_plain", "display",
        "convert", "share",
    ]
    public static let sectionKeys = [
        "display": ["output", "card", "connector", "mode", "background", "overscan", "crossfade_ms", "accent", "logo", "background_image"],
        "convert": [
            "office", "timeout_seconds", "at_once", "queue", "memory_mb", "max_pages", "max_unpacked_mb", "warm", "image_max_megapixels", "image_memory_mb",
            "image_cpu_seconds", "image_max_count",
        ],
        "share": ["max_resolution", "max_frame_rate", "max_bitrate_kbps", "max_queued_kb", "decoder_memory_mb", "stall_seconds"],
    ]
}
