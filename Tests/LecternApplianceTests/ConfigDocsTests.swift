import Foundation
import LecternModel
@testable import LecternService
import XCTest

/// docs/config.md against the config's table (ConfigTable.swift): the key table has one
/// row per key, in the table's order, with its type, default and range; the reload section
/// names the keys a reload leaves for the next restart, and only those.
final class ConfigDocsTests: XCTestCase {
    struct DocRow {
        var key: String, type: String, defaultText: String, range: String
    }

    /// The rows of docs/config.md's key table, in order.
    func documented() throws -> [DocRow] {
        let doc = try repoFile("docs/config.md")
        let table = try XCTUnwrap(doc.components(separatedBy: "## Keys\n").dropFirst().first).components(separatedBy: "\n## ")[0]
        var rows: [DocRow] = []
        for line in table.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 6 else { continue }
            let key = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            // "`7420`" or "`\"\"` (must be set)": the first code span.
            let parts = cells[3].split(separator: "`", omittingEmptySubsequences: false)
            XCTAssertGreaterThanOrEqual(parts.count, 3, "no default for \(key) in docs/config.md")
            rows.append(DocRow(key: key, type: cells[2], defaultText: parts.count >= 3 ? String(parts[1]) : "", range: cells[4]))
        }
        return rows
    }

    func testTheKeyTableHasEveryKeyOnceInTheTablesOrder() throws {
        XCTAssertEqual(try documented().map(\.key), ConfigKey.all.map(\.path), "docs/config.md's key table vs ConfigKey.all")
    }

    func testEachDocumentedTypeDefaultAndRangeIsTheTables() throws {
        let rows = Dictionary(try documented().map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        for key in ConfigKey.all {
            guard let doc = rows[key.path] else { continue }   // missing: the test above says so
            XCTAssertEqual(doc.type, key.type.rawValue, "the type of '\(key.path)'")
            XCTAssertEqual(doc.defaultText, key.defaultText, "the default of '\(key.path)'")
            for fact in key.range {
                XCTAssertTrue(doc.range.contains(fact), "docs/config.md's range of '\(key.path)' doesn't say \(fact): \(doc.range)")
            }
        }
    }

    /// Writing each documented default explicitly gives the same Config as leaving it out.
    func testTheDocumentedDefaultsReadBackAsTheDefaults() throws {
        var top = "", sections: [(name: String, text: String)] = []
        for row in try documented() {
            if row.key == "passcode" || row.key == "moderator_passcode" { continue }
            if let dot = row.key.firstIndex(of: ".") {
                let name = String(row.key[..<dot])
                if sections.last?.name != name { sections.append((name, "[\(name)]\n")) }
                sections[sections.count - 1].text += "\(row.key[row.key.index(after: dot)...]) = \(row.defaultText)\n"
            } else {
                top += "\(row.key) = \(row.defaultText)\n"
            }
        }
        let r = ConfigFile.parse("passcode = \"tulip-harbour\"\nmoderator_passcode = \"granite-lantern\"\n" + top + sections.map(\.text).joined())
        XCTAssertEqual(r.problems, [])
        var expected = Config()
        expected.passcode = "tulip-harbour"
        expected.moderatorPasscode = "granite-lantern"
        XCTAssertEqual(r.config, expected, "a default in docs/config.md differs from Config()")
    }

    /// "Reloading: SIGHUP" names every top-level key a reload keeps for the next restart,
    /// and no other top-level key among them; the [display] keys a reload applies are named
    /// as the exceptions.
    func testTheReloadSectionNamesTheRestartOnlyKeys() throws {
        let doc = try repoFile("docs/config.md")
        let reload = try XCTUnwrap(doc.components(separatedBy: "## Reloading: SIGHUP\n").dropFirst().first).components(separatedBy: "\n## ")[0]
        let applies = try XCTUnwrap(reload.components(separatedBy: "- **A valid file applies.**").dropFirst().first).components(separatedBy: "\n- ")[0]
        let held = try XCTUnwrap(applies.components(separatedBy: "Keys that need").dropFirst().first)
        let live = applies.components(separatedBy: "Keys that need")[0]
        func named(_ text: String) -> Set<String> {
            Set(text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
        }
        let restartTop = Set(ConfigKey.all.filter { $0.reload == .restart && $0.section == nil }.map(\.path))
        let liveTop = Set(ConfigKey.all.filter { $0.reload == .live && $0.section == nil }.map(\.path))
        XCTAssertEqual(named(held).intersection(restartTop.union(liveTop)), restartTop, "the keys the reload section says wait for a restart")
        let liveDisplay = Set(ConfigKey.all.filter { $0.reload == .live && $0.section == "display" }.map(\.path))
        XCTAssertEqual(named(live).intersection(Set(ConfigKey.all.filter { $0.section == "display" }.map(\.path))), liveDisplay)
        XCTAssertTrue(held.contains("`[display]`"), "the rest of [display] waits for a restart")
    }
}
