import Foundation
import LecternModel
import LecternProtocol
import LecternRender

/// Every key of the config file, one row each, in docs/config.md's order.
///
/// A row is `.kind("section.name", \.field, range, "one line of doc", reload)`:
/// - **kind**: `integer` (a range), `number` (an integer or a float, a range), `boolean`,
///   `choice` (an enum's raw values, or words each meaning a value), `text` (a string read
///   by a closure), `optionalText` (a string where `""` is nil: "not set").
/// - **name**: `port` at the top level, `display.mode` in the `[display]` section.
/// - **field**: the `Config` field it fills; the field's initial value is the default.
/// - **reload**: `.live` (a SIGHUP applies it; the default) or `.restart` (kept until the
///   next restart, with a warning).
///
/// Adding a key: its field in `Config` (LecternModel/Config.swift) with its default, one row
/// here, one row in docs/config.md's table (ConfigDocsTests checks the two agree), and the
/// key commented in `board/lectern.toml`. Rules between keys go in ConfigRelations.swift.
extension ConfigKey {
    static let all: [ConfigKey] = [
        .text(
            "room", \.room, range: ["80 characters", "255 bytes"], "The room's name: idle screen, hello, state.", written: { $0 },
            parse: { s in
                guard !s.trimmingCharacters(in: .whitespaces).isEmpty else { return .failure(Problem("'room' must not be blank")) }
                guard s.count <= 80, s.utf8.count <= ProtocolLimits.maxRoomNameBytes else {
                    return .failure(Problem("'room' must be at most 80 characters (and \(ProtocolLimits.maxRoomNameBytes) bytes of UTF-8), not \(s.count)"))
                }
                return .success(s)
            }),
        .integer("port", \.port, 1...65535, "The wire protocol's TCP port.", .restart),
        .integer(
            "http_port", \.httpPort, 0...65535, "The web remote's port (HTTPS and /ws); 0: no web remote.", .restart,
            meaning: { $0 == 0 ? nil : $0 }, written: { $0 ?? 0 }),
        .optionalText("passcode", \.passcode, range: [], "What presenters join with: plain, or a hash."),
        .optionalText("moderator_passcode", \.moderatorPasscode, range: [], "What the moderator joins with."),
        .choice("audience", \.audience, "Who may join as a viewer."),
        .optionalText("audience_passcode", \.audiencePasscode, range: [], "A passcode for viewers only."),
        .integer("audience_idle_minutes", \.audienceIdleMinutes, 1...10080, "Minutes with nobody in the room before the meeting ends."),
        .choice("uploads_kept", \.uploadsKept, "What becomes of uploads when a meeting ends."),
        .integer("audience_new_per_address", \.audienceNewPerAddress, 1...1000, "New viewer identities an address gets at once."),
        .choice("floor", \.floor, "Who decides who presents: the moderator, or whoever asks.", .restart),
        .integer("passcode_min_length", \.passcodeMinLength, 4...128, "Plain passcodes shorter than this are refused."),
        .number("grace_period", \.gracePeriod, 0...3600, "Seconds a dropped floor holder keeps the floor.", .restart),
        .number("remove_cooldown", \.removeCooldown, 0...3600, "Seconds a removed presenter can't come back."),
        .integer("max_clients", \.maxClients, 1...254, "Presenters connected at once.", .restart),
        .integer("timer_warning_minutes", \.timerWarningMinutes, 0...120, "The talk timer's warning, minutes before the end."),
        .boolean("wrap_around", \.wrapAround, "Next on the last page goes to the first."),
        .number("keepalive_timeout", \.keepaliveTimeout, 2...300, "Seconds of silence after which a device is gone."),
        .integer("max_connections", \.maxConnections, 16...60000, "Connections open at once, both ports.", .restart),
        .integer("max_connections_per_address", \.maxConnectionsPerAddress, 2...60000, "Connections open at once from one address.", .restart),
        .integer(
            "connections_reserved_for_devices", \.connectionsReservedForDevices, 0...60000, "Of max_connections, the places only registered devices take.",
            .restart),
        .number("http_head_timeout", \.httpHeadTimeout, 1...120, "Seconds a web connection has to send its request head.", .restart),
        .number("http_idle_timeout", \.httpIdleTimeout, 1...3600, "Seconds an idle keep-alive web connection stays open.", .restart),
        .text(
            "audio_device", \.audioDevice, range: ["\"auto\"", "\"off\"", "128 characters"], "Where clips' sound plays.", .restart,
            written: { $0.description },
            parse: { s in
                guard !s.isEmpty, s.count <= 128, s.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value < 0x7F }) else {
                    return .failure(
                        Problem("'audio_device' must be \"auto\", \"off\" or an ALSA device name (printable, no spaces, up to 128 characters), not '\(s)'"))
                }
                return .success(AudioDevice(s))
            }),
        .text(
            "data_dir", \.dataDir, range: ["absolute path"], "Uploads and the saved state.", .restart, written: { $0 },
            parse: { s in s.hasPrefix("/") ? .success(s) : .failure(Problem("'data_dir' must be an absolute path, not '\(s)'")) }),
        .boolean("ink_everyone", \.inkEveryone, "Whether every presenter may draw on the wall."),
        .choice("record", \.record, [("on", true), ("off", false)], "Whether the room keeps the meeting record."),
        .boolean("record_presenters", \.recordPresenters, "Whether presenters may download the record."),
        // The code machinery is set up at start: turned on by a reload, the room would have no code to key.
        .boolean("screen_code", \.screenCode, "The presenter passcode is a code drawn on the wall.", .restart),
        .integer("screen_code_minutes", \.screenCodeMinutes, 1...1440, "Minutes after which the code on the wall changes.", .restart),
        .optionalText(
            "wifi_ssid", \.wifiSSID, range: ["32 bytes"], "The room's Wi-Fi, on the idle screen.",
            check: { s in s.utf8.count <= 32 ? nil : "'wifi_ssid' must be at most 32 bytes (a Wi-Fi network name), not \(s.utf8.count)" }),
        .optionalText(
            "wifi_password", \.wifiPassword, range: ["8–63 bytes"], "Its WPA passphrase, in the Wi-Fi QR code.",
            check: { s in
                (8...63).contains(s.utf8.count)
                    ? nil : "'wifi_password' must be empty (an open network) or a WPA passphrase of 8 to 63 bytes, not \(s.utf8.count)"
            }),
        .boolean("tls", \.tls, "TLS on both ports.", .restart),
        .optionalText(
            "tls_certificate", \.tlsCertificate, range: ["absolute path"], "The admin's certificate chain (PEM).",
            check: { s in
                guard s.hasPrefix("/") else { return "'tls_certificate' must be empty (a self-signed certificate) or an absolute path to a PEM file, not '\(s)'" }
                return FileManager.default.isReadableFile(atPath: s) ? nil : "'tls_certificate' (\(s)) can't be read"
            }),
        .optionalText(
            "tls_key", \.tlsKey, range: ["absolute path"], "Its private key (PEM).",
            check: { s in
                guard s.hasPrefix("/") else { return "'tls_key' must be empty or an absolute path to a PEM private key, not '\(s)'" }
                return FileManager.default.isReadableFile(atPath: s)
                    ? nil : "'tls_key' (\(s)) can't be read (lecternd runs as the lectern user: chown lectern, chmod 600)"
            }),
        .boolean("allow_plain", \.allowPlain, "With TLS on, plain connections are accepted too.", .restart),
        .optionalText(
            "metrics_address", \.metricsAddress, range: ["HOST:PORT"], "Where Prometheus scrapes /metrics.", .restart, written: { $0.description },
            parse: { s in
                ListenAddress(parsing: s).map { .success($0) }
                    ?? .failure(
                        Problem("'metrics_address' must be empty (no metrics) or HOST:PORT like \"127.0.0.1:9420\" or \"[::1]:9420\", not '\(s)'"))
            }),
        .integer("max_upload_mb", \.maxUploadMB, 1...65536, "The largest upload, in MiB."),
        .integer("disk_quota_mb", \.diskQuotaMB, 1...(1 << 24), "Everything stored together, in MiB."),
        .integer("page_cache_mb", \.pageCacheMB, 0...4096, "Finished page frames kept in memory, in MiB.", .restart),
        .number("render_budget", \.renderBudget, 0.5...60, "Seconds one page may take to draw.", .restart),
        .integer("render_memory_mb", \.renderMemoryMB, 128...4096, "MiB one page may use to draw.", .restart),

        // [display]: the output is opened once, at start; the idle screen's branding is drawn again at a reload.
        .choice("display.output", \.display, "KMS, the virtual display, or whichever there is.", .restart),
        .optionalText(
            "display.card", \.card, range: ["\"cardN\"", "\"/dev/dri/cardN\""], "The DRM card.", .restart,
            check: { s in
                isCardName(s)
                    ? nil
                    : "'display.card' must be empty (the first card with a display connected), a name like \"card0\" or a path like \"/dev/dri/card0\", not '\(s)'"
            }),
        .optionalText(
            "display.connector", \.connector, range: ["32"], "The connector, e.g. HDMI-A-1.", .restart,
            check: { s in
                isConnectorName(s) ? nil : "'display.connector' must be empty (the first connected one) or a connector name like \"HDMI-A-1\", not '\(s)'"
            }),
        .optionalText(
            "display.mode", \.mode, range: ["\"WxH\"", "\"WxH@R\"", "16–16384", "1–1000 Hz"], "The output mode; empty: the preferred one.", .restart,
            written: { $0.description },
            parse: { s in
                RequestedMode(parsing: s).map { .success($0) }
                    ?? .failure(
                        Problem("'display.mode' must be empty (the display's preferred mode) or look like 1920x1080 or 1920x1080@60, not '\(s)'"))
            }),
        .text(
            "display.background", \.background, range: ["\"#rrggbb\"", "\"#rgb\"", "navy"], "The bars' and the idle screen's colour.", .restart,
            written: colourName,
            parse: { s in
                RGB(parsing: s).map { .success($0) }
                    ?? .failure(Problem("'display.background' must be \"#rrggbb\", \"#rgb\" or one of black, white, gray, navy, not '\(s)'"))
            }),
        .number("display.overscan", \.overscanPercent, 0...25, "Percent kept clear on each side.", .restart),
        ConfigKey(
            "display.crossfade_ms", \.crossfadeMs, type: .integer, range: ["0", "50–2000"], "The cross-fade between pages, in ms.", .restart,
            write: { String($0) },
            parse: { value in
                guard case .integer(let i) = value, i == 0 || (50...2000).contains(i) else {
                    return .failure(Problem("'display.crossfade_ms' must be 0 (no cross-fade) or from 50 to 2000 milliseconds, not \(value.described)"))
                }
                return .success(i)
            }),
        .optionalText(
            "display.accent", \.accent, range: ["\"#rrggbb\""], "The idle screen's accent colour.", written: colourName,
            parse: { s in
                RGB(parsing: s).map { .success($0) }
                    ?? .failure(Problem("'display.accent' must be empty or \"#rrggbb\", \"#rgb\" or one of black, white, gray, navy, not '\(s)'"))
            }),
        .optionalText("display.logo", \.logo, range: ["PNG or SVG"], "A logo on the idle screen.", check: { picture("display.logo", $0) }),
        .optionalText(
            "display.background_image", \.backgroundImage, range: ["PNG or SVG"], "A picture under the idle screen.",
            check: { picture("display.background_image", $0) }),

        // [convert]: uploads converted to PDF (docs/protocol.md §30); the converters are set up at start.
        .boolean("convert.office", \.convert.office, "Office documents converted by LibreOffice in a sandbox.", .restart),
        .integer("convert.timeout_seconds", \.convert.timeoutSeconds, 5...600, "Wall-clock seconds one conversion may take.", .restart),
        .integer("convert.at_once", \.convert.atOnce, 1...4, "Conversions running at once.", .restart),
        .integer("convert.queue", \.convert.queue, 0...64, "Conversions waiting besides those.", .restart),
        .integer("convert.memory_mb", \.convert.memoryMB, 256...8192, "Memory (MB) one conversion may use.", .restart),
        .integer("convert.max_pages", \.convert.maxPages, 1...5000, "Pages a converted document may have.", .restart),
        .integer("convert.max_unpacked_mb", \.convert.maxUnpackedMB, 1...4096, "What a zipped document may unpack to (MB).", .restart),
        .boolean("convert.warm", \.convert.warm, "A converter started ahead while an office file uploads.", .restart),
        .integer("convert.image_max_megapixels", \.convert.imageMaxMegapixels, 1...1000, "The most megapixels an image's header may claim.", .restart),
        .integer("convert.image_memory_mb", \.convert.imageMemoryMB, 64...4096, "Memory (MB) decoding one image may add.", .restart),
        .integer("convert.image_cpu_seconds", \.convert.imageCPUSeconds, 1...300, "Processor seconds decoding one image may take.", .restart),
        .integer("convert.image_max_count", \.convert.imageMaxCount, 2...500, "Images chosen together that make one deck.", .restart),

        // [share]: live sharing's caps (docs/protocol.md §29); the share worker is set up at start.
        .text(
            "share.max_resolution", \.share.maxResolution, range: ["\"WxH\"", "16–1920", "1920×1200"], "The largest picture a share may send.", .restart,
            written: { $0.description },
            parse: { s in
                let p = s.split(separator: "x").compactMap { Int($0) }
                guard p.count == 2, p.allSatisfy({ (16...1920).contains($0) }), p[0] * p[1] <= 1920 * 1200 else {
                    return .failure(
                        Problem("'share.max_resolution' must look like \"1920x1200\": each side 16–1920, at most 1920×1200 pixels in all, not '\(s)'"))
                }
                return .success(ShareSettings.PixelSize(width: p[0], height: p[1]))
            }),
        .integer("share.max_frame_rate", \.share.maxFrameRate, 1...60, "Frames a second a share may announce.", .restart),
        .integer("share.max_bitrate_kbps", \.share.maxBitrateKbps, 100...20000, "The bitrate (kbit/s) a share may announce.", .restart),
        .integer("share.max_queued_kb", \.share.maxQueuedKB, 256...16384, "Received KiB waiting for a share's decoder.", .restart),
        .integer("share.decoder_memory_mb", \.share.decoderMemoryMB, 64...4096, "Memory (MB) a share's decoder process may use.", .restart),
        .number("share.stall_seconds", \.share.stallSeconds, 0.5...30, "The longest one picture may take to decode.", .restart),
    ]

    /// The sections, with what a key of that name that isn't a table is told.
    static let sections: [String: String] = [
        "display": "a [display] section (the output is chosen with output = \"auto\", \"kms\" or \"virtual\" in it)",
        "convert": "a [convert] section (what is converted to PDF, and its limits)",
        "share": "a [share] section (live sharing's caps)",
    ]
}

// MARK: checks of the rows above

extension ConfigKey {
    static func isCardName(_ s: String) -> Bool {
        let name = s.hasPrefix("/dev/dri/") ? String(s.dropFirst("/dev/dri/".count)) : s
        guard name.hasPrefix("card") else { return false }
        let n = name.dropFirst(4)
        return !n.isEmpty && n.count <= 3 && n.allSatisfy(\.isASCII) && n.allSatisfy(\.isNumber)
    }

    static func isConnectorName(_ s: String) -> Bool {
        s.count <= 32 && s.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
    }

    /// A logo or background picture: an absolute path to a PNG or SVG the idle screen can draw.
    static func picture(_ path: String, _ s: String) -> String? {
        guard s.hasPrefix("/") else { return "'\(path)' must be an absolute path to a PNG or SVG file, not '\(s)'" }
        return IdleLogo.problem(path: s).map { "'\(path)' (\(s)) \($0)" }
    }

    /// `black`, `white`, or `#rrggbb`.
    @Sendable static func colourName(_ c: RGB) -> String {
        c == .black ? "black" : c == .white ? "white" : c.description
    }
}
