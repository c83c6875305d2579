import Foundation
import LecternModel
import LecternProtocol
import LecternTestSupport
import XCTest

/// The web remote's protocol numbers (Sources/LecternService/Web/core/protocol.js) against the
/// Swift tables (Command.swift, Errors.swift): every command byte, its name and its sender,
/// every error code and its name; nothing missing on either side, nothing different. The
/// small tables (roles, signals, moderation, limits, the wall's layouts, sharing, the timer)
/// are checked in the module as node loads it.
///
/// protocol.js is read as text (no browser needed): its COMMANDS and ERRORS are one row per
/// line in a fixed form, and a line in them that isn't of that form fails the test rather
/// than being skipped. A second test checks the same against the module as Chromium loads it.
final class ProtocolTableDriftTests: XCTestCase {
    struct JSTables {
        var commands: [(code: UInt8, name: String, sender: String)] = []
        var errors: [(code: UInt16, name: String)] = []
    }

    static var protocolJS: String {
        get throws {
            let path = Repository.path("Sources/LecternService/Web/core/protocol.js")
            return try String(contentsOfFile: path, encoding: .utf8)
        }
    }

    /// The rows of `export const NAME = Object.freeze([ … ]);`, each row matched by `row`.
    static func rows(of name: String, in js: String, row: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String]] {
        let lines = js.components(separatedBy: "\n")
        let start = try XCTUnwrap(
            lines.firstIndex(of: "export const \(name) = Object.freeze(["),
            "protocol.js has no `export const \(name) = Object.freeze([` line", file: file, line: line)
        let end = try XCTUnwrap(lines[start...].firstIndex(of: "]);"), "\(name) in protocol.js has no closing `]);` line", file: file, line: line)
        let pattern = try NSRegularExpression(pattern: "^  " + row + ",$")
        var out: [[String]] = []
        for text in lines[(start + 1)..<end] where !text.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
            guard let m = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else {
                XCTFail("\(name) in protocol.js: line \"\(text)\" is not a row of the form \(row)", file: file, line: line)
                continue
            }
            out.append((1..<m.numberOfRanges).map { String(text[Range(m.range(at: $0), in: text)!]) })
        }
        return out
    }

    static func parse() throws -> JSTables {
        let js = try protocolJS
        var t = JSTables()
        for r in try rows(of: "COMMANDS", in: js, row: #"\[0x([0-9A-Fa-f]{2}), '([a-z-]+)', +'(client|server|either)'\]"#) {
            t.commands.append((UInt8(r[0], radix: 16)!, r[1], r[2]))
        }
        for r in try rows(of: "ERRORS", in: js, row: #"\[0x([0-9A-Fa-f]{4}), '([A-Za-z]+)'\]"#) {
            t.errors.append((UInt16(r[0], radix: 16)!, r[1]))
        }
        return t
    }

    static func word(_ s: Sender) -> String {
        switch s {
        case .client: "client"
        case .server: "server"
        case .either: "either"
        }
    }

    static func hex(_ v: some BinaryInteger, digits: Int) -> String {
        let h = String(v, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, digits - h.count)) + h
    }

    /// Both sides as comparable lines ("0x02 register-ok server"), each checked for duplicates.
    static func compare(
        swift: [(key: String, row: String)], js: [(key: String, row: String)], what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        for (side, rows) in [("Swift", swift), ("protocol.js", js)] {
            let keys = rows.map(\.key)
            let twice = Set(keys.filter { k in keys.filter { $0 == k }.count > 1 })
            XCTAssertEqual(twice, [], "\(what) in \(side) more than once", file: file, line: line)
        }
        let s = Dictionary(swift.map { ($0.key, $0.row) }, uniquingKeysWith: { a, _ in a })
        let j = Dictionary(js.map { ($0.key, $0.row) }, uniquingKeysWith: { a, _ in a })
        let onlySwift = s.keys.filter { j[$0] == nil }.sorted().map { s[$0]! }
        let onlyJS = j.keys.filter { s[$0] == nil }.sorted().map { j[$0]! }
        let different = s.keys.filter { j[$0] != nil && j[$0] != s[$0] }.sorted().map { "Swift \(s[$0]!) ≠ protocol.js \(j[$0]!)" }
        XCTAssertEqual(onlySwift, [], "\(what) in the Swift table but not in protocol.js", file: file, line: line)
        XCTAssertEqual(onlyJS, [], "\(what) in protocol.js but not in the Swift table", file: file, line: line)
        XCTAssertEqual(different, [], "\(what) that differ", file: file, line: line)
    }

    static var swiftCommands: [(key: String, row: String)] {
        Command.allCases.map { c in (hex(c.rawValue, digits: 2), "\(hex(c.rawValue, digits: 2)) \(c.description) \(word(c.sender))") }
    }
    static var swiftCommandNames: [(key: String, row: String)] {
        Command.allCases.map { c in (c.description, "\(c.description) \(hex(c.rawValue, digits: 2))") }
    }
    static var swiftErrors: [(key: String, row: String)] {
        ErrorCode.all.map { e in (hex(e.rawValue, digits: 4), "\(hex(e.rawValue, digits: 4)) \(e.name)") }
    }
    static var swiftErrorNames: [(key: String, row: String)] {
        ErrorCode.all.map { e in (e.name, "\(e.name) \(hex(e.rawValue, digits: 4))") }
    }

    func testTheWebRemotesCommandsAndErrorCodesAreTheSwiftTables() throws {
        let js = try Self.parse()
        XCTAssertFalse(js.commands.isEmpty)
        XCTAssertFalse(js.errors.isEmpty)
        // By number: each byte or code with its name (and a command's sender) …
        Self.compare(
            swift: Self.swiftCommands,
            js: js.commands.map { (Self.hex($0.code, digits: 2), "\(Self.hex($0.code, digits: 2)) \($0.name) \($0.sender)") },
            what: "command bytes")
        Self.compare(
            swift: Self.swiftErrors,
            js: js.errors.map { (Self.hex($0.code, digits: 4), "\(Self.hex($0.code, digits: 4)) \($0.name)") },
            what: "error codes")
        // … and by name, so that a name given to two numbers shows too.
        Self.compare(
            swift: Self.swiftCommandNames,
            js: js.commands.map { ($0.name, "\($0.name) \(Self.hex($0.code, digits: 2))") }, what: "command names")
        Self.compare(
            swift: Self.swiftErrorNames,
            js: js.errors.map { ($0.name, "\($0.name) \(Self.hex($0.code, digits: 4))") }, what: "error names")
    }

    /// The same, against what the page runs: the module as Chromium loads it, including the
    /// lookups the code uses (C.registerOK, ERR.wrongPasscode) derived from the rows.
    func testTheLoadedModuleHasTheSwiftTables() throws {
        let h = try ServiceHarness.web()
        let b = try h.browser()
        let loaded =
            try b.execute(
                """
                const p = window.Lectern.protocol;
                return [p.COMMANDS.map((r) => r.join(' ')), p.ERRORS.map((r) => r.join(' ')),
                        Object.entries(p.C).map((e) => e.join(' ')), Object.entries(p.ERR).map((e) => e.join(' '))];
                """) as? [[String]] ?? []
        XCTAssertEqual(loaded.count, 4, "\(loaded)")
        guard loaded.count == 4 else { return }
        XCTAssertEqual(loaded[0], Command.allCases.map { "\($0.rawValue) \($0.description) \(Self.word($0.sender))" })
        XCTAssertEqual(loaded[1], ErrorCode.all.map { "\($0.rawValue) \($0.name)" })
        // C: the name in camel case ("register-ok" → registerOK), as the Swift cases are named.
        func camel(_ name: String) -> String {
            name.split(separator: "-").enumerated().map { i, w in
                i == 0 ? String(w) : w == "ok" ? "OK" : w.prefix(1).uppercased() + w.dropFirst()
            }.joined()
        }
        XCTAssertEqual(loaded[2], Command.allCases.map { "\(camel($0.description)) \($0.rawValue)" })
        XCTAssertEqual(loaded[3], ErrorCode.all.map { "\($0.name) \($0.rawValue)" })
    }

    /// Web/core's modules as node loads them: every exported constant named in `names`, as JSON.
    static func loadedConstants(_ names: [String: [String]]) throws -> [String: Any] {
        var lines: [String] = []
        var fields: [String] = []
        for (i, (module, exports)) in names.sorted(by: { $0.key < $1.key }).enumerated() {
            let url = URL(fileURLWithPath: Repository.path("Sources/LecternService/Web/core/" + module)).absoluteString
            lines.append("const m\(i) = await import('\(url)');")
            fields += exports.map { "'\(module) \($0)': m\(i).\($0)" }
        }
        lines.append("process.stdout.write(JSON.stringify({ \(fields.joined(separator: ", ")) }));")
        let r = try Fixtures.run(
            "node", ["--experimental-default-type=module", "--disable-warning=ExperimentalWarning", "--input-type=module", "-e", lines.joined(separator: "\n")])
        XCTAssertEqual(r.status, 0, r.err)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: r.out) as? [String: Any], r.err)
    }

    /// Every constant of the web client that mirrors a Swift table or limit, as the module
    /// exports it, against the Swift value: each table whole (a name only on one side fails).
    func testTheSmallTablesAreTheSwiftOnes() throws {
        let js = try Self.loadedConstants([
            "protocol.js": [
                "ROLE", "SIGNAL", "MODERATE", "LAYOUT", "PANE_ACTION", "MAX_FRAME", "MAX_CHUNK", "PROTOCOL_VERSION", "AUDIENCE_SET", "SOUND_UNCHANGED",
                "INK_LIMITS", "SHARE_LIMITS", "PAGE_IMAGE_WIDTHS",
            ],
            "share-wire.js": ["CODEC", "SOURCE", "PLACEMENT", "SHARE_ACTION", "SHARE_MODERATE"],
            "console-wire.js": ["TIMER_ACTION", "TIMER_MODE", "KEEP_WARNING", "LAYOUT"],
            "upload.js": ["FIRST_PAGE"],
        ])
        func table(_ key: String) -> [String: Int] { (js[key] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int } }
        func number(_ key: String) -> Int? { js[key] as? Int }
        func bytes<T>(_ cases: [T], _ byte: (T) -> UInt8) -> [String: Int] {
            Dictionary(uniqueKeysWithValues: cases.map { (String(describing: $0).split(separator: "(").first.map(String.init) ?? "", Int(byte($0))) })
        }
        XCTAssertEqual(table("protocol.js ROLE"), bytes(Role.allCases) { $0.rawValue })
        // The page says giveBack where Swift says returnFloor (0xFF, "give the floor back").
        let signals: [ControlSignal] = [.next, .prev, .goto(page: 1), .blank(white: false), .unblank, .handOver(to: 1), .takeBack, .returnFloor, .transitions(fadeMs: 0)]
        var swiftSignals = bytes(signals) { $0.signalByte }
        swiftSignals["giveBack"] = swiftSignals.removeValue(forKey: "returnFloor")
        XCTAssertEqual(table("protocol.js SIGNAL"), swiftSignals)
        XCTAssertEqual(table("protocol.js MODERATE"), bytes(FloorAction.allCases) { $0.rawValue })
        XCTAssertEqual(table("protocol.js LAYOUT"), bytes(WallLayout.allCases) { $0.wireValue })
        let id = try XCTUnwrap(ContentID(bytes: [UInt8](repeating: 1, count: 32)))
        let actions: [PaneAction] = [.present(content: id, page: 1), .clear, .assign(0), .full, .swap(with: 0)]
        XCTAssertEqual(table("protocol.js PANE_ACTION"), bytes(actions) { $0.wireValue })
        XCTAssertEqual(number("protocol.js MAX_FRAME"), Int(ProtocolLimits.maxFrameLength))
        XCTAssertEqual(number("protocol.js MAX_CHUNK"), ProtocolLimits.maxChunkLength)
        XCTAssertEqual(number("protocol.js PROTOCOL_VERSION"), Int(lecternProtocolVersion))
        let settings: [AudienceSetting] = [.lock, .unlock, .allowDownload, .revokeDownload, .endMeeting]
        XCTAssertEqual(table("protocol.js AUDIENCE_SET"), bytes(settings) { $0.rawValue })
        XCTAssertEqual(number("protocol.js SOUND_UNCHANGED"), Int(SoundSetting.unchanged))
        XCTAssertEqual(table("protocol.js INK_LIMITS"), ["pointsPerMessage": InkMessage.maxPointsPerMessage, "pointsPerStroke": InkMessage.maxPointsPerStroke])
        XCTAssertEqual(table("protocol.js SHARE_LIMITS"), ["maxSide": ShareLimits().maxSide, "maxPixels": ShareLimits().maxPixels])
        XCTAssertEqual(js["protocol.js PAGE_IMAGE_WIDTHS"] as? [Int], PageImageAddress.widths)

        XCTAssertEqual(table("share-wire.js CODEC"), bytes(ShareCodec.allCases) { $0.rawValue })
        XCTAssertEqual(table("share-wire.js SOURCE"), bytes([ShareSourceKind.screen, .camera, .file]) { $0.rawValue })
        XCTAssertEqual(table("share-wire.js PLACEMENT"), bytes([SharePlacement.driven, .beside]) { $0.rawValue })
        XCTAssertEqual(table("share-wire.js SHARE_ACTION"), bytes([ShareAction.pause, .resume, .stop]) { $0.rawValue })
        XCTAssertEqual(table("share-wire.js SHARE_MODERATE"), bytes([ShareModeration.approve, .approveBeside, .end]) { $0.rawValue })

        XCTAssertEqual(table("console-wire.js TIMER_ACTION"), bytes([TimerCommand.Action.start, .pause, .reset, .set]) { $0.rawValue })
        XCTAssertEqual(table("console-wire.js TIMER_MODE"), bytes([TimerCommand.Mode.keep, .elapsed, .countdown, .endTime]) { $0.rawValue })
        XCTAssertEqual(number("console-wire.js KEEP_WARNING"), Int(TimerCommand(action: .start).warnMinutes), "the timer's \"keep the warning\"")
        // The notes' layouts, and "auto" as notes-layout without a layout (detect) encodes it.
        var layouts = bytes(NotesLayout.allCases) { $0.wireValue }
        layouts["auto"] = Int(Message.notesLayout(content: id, layout: nil).encodeBody().last ?? 0)
        XCTAssertEqual(table("console-wire.js LAYOUT"), layouts)

        XCTAssertEqual(number("upload.js FIRST_PAGE"), Int(ConversionProgress.Stage.firstPage.rawValue))
    }
}
