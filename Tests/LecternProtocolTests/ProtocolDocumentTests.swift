import Foundation
import LecternProtocol
import LecternTestSupport
import XCTest

/// docs/protocol.md is a contract outside people implement clients from: its structure and
/// its lists that repeat the command table are checked here, so they can't drift apart
/// again (an outside implementer found §25.5 after §26, contents stopping at §19, §6.1's and
/// §2.6's lists predating half the commands, and conformance rules that were only in
/// other sections).
final class ProtocolDocumentTests: XCTestCase {
    func doc() throws -> String {
        try String(contentsOfFile: Repository.path("docs/protocol.md"), encoding: .utf8)
    }

    /// `## N. Title` headings, in the order they stand.
    func sections(_ d: String) -> [(number: Int, title: String)] {
        d.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("## "), let dot = line.firstIndex(of: ".") else { return nil }
            guard let n = Int(line[line.index(line.startIndex, offsetBy: 3)..<dot]) else { return nil }
            return (n, line[line.index(after: dot)...].trimmingCharacters(in: .whitespaces))
        }
    }

    func testSectionsAreNumberedInOrderAndTheContentsListsThemAll() throws {
        let d = try doc()
        let s = sections(d)
        XCTAssertEqual(s.map(\.number), Array(1...s.count), "sections numbered 1, 2, 3 … in the order they stand")
        guard let contents = d.split(separator: "\n\n").first(where: { $0.hasPrefix("Contents:") }) else {
            return XCTFail("no Contents: paragraph")
        }
        let listed = contents.dropFirst("Contents:".count).split(separator: "·").map {
            $0.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        XCTAssertEqual(listed, s.map { "\($0.number) \($0.title)" }, "the contents list every section, in order, by its title")
    }

    func testEverySubsectionStandsInItsSection() throws {
        var current = 0
        for line in try doc().split(separator: "\n") {
            if line.hasPrefix("## "), let n = Int(line.dropFirst(3).prefix(while: \.isNumber)) { current = n }
            if line.hasPrefix("### ") {
                let n = Int(line.dropFirst(4).prefix(while: \.isNumber))
                XCTAssertEqual(n, current, "\(line) stands in section \(current)")
            }
        }
    }

    /// The §5 table: command name → its reply column.
    func commandReplies(_ d: String) -> [String: String] {
        var replies: [String: String] = [:]
        for line in d.split(separator: "\n") where line.hasPrefix("| `0x") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 6, let name = cells[1].split(separator: " ").last, cells[3].hasPrefix("C") else { continue }
            replies[String(name)] = cells[5]
        }
        return replies
    }

    /// The backticked names in the paragraph that starts with `start`.
    func names(in d: String, after start: String) throws -> Set<String> {
        let r = try XCTUnwrap(d.range(of: start), "\(start) missing")
        let paragraph = String(d[r.upperBound...]).components(separatedBy: "\n\n")[0]
        let parts = paragraph.components(separatedBy: "`")
        return Set(stride(from: 1, to: parts.count, by: 2).map { parts[$0] }.filter { !$0.hasPrefix("0x") })
    }

    func testOkAnswersExactlyTheCommandsWhoseReplyIsOk() throws {
        let d = try doc()
        let ok = Set(commandReplies(d).filter { $0.value == "ok" }.keys)
        XCTAssertFalse(ok.isEmpty)
        XCTAssertEqual(try names(in: d, after: "**ok (`0x13`, S→C).** Empty. The success reply of"), ok, "§6.1's list against §5")
    }

    func testTheRepliesSectionNamesEveryCommandWithoutASingleReply() throws {
        let d = try doc()
        let replies = commandReplies(d)
        let none = Set(replies.filter { $0.value.hasPrefix("none") }.keys)
        let several = Set(replies.filter { $0.value.contains("…") }.keys)
        XCTAssertFalse(none.isEmpty)
        XCTAssertFalse(several.isEmpty)
        XCTAssertEqual(try names(in: d, after: "No success reply (only a failure, if any):"), none, "§2.6 against §5")
        XCTAssertEqual(try names(in: d, after: "Several frames answer:"), several, "§2.6 against §5")
    }

    /// Every rule is in §19, numbered C1, C2 … once; every rule marked *tested* has its test
    /// in the conformance suite (`testC<N>…`), and every such test has its rule.
    func testTheConformanceListIsWholeAndEachTestedRuleHasItsTest() throws {
        let d = try doc()
        let numbers = d.split(separator: "\n").compactMap { line -> (Int, Bool)? in
            guard line.hasPrefix("- **C"), let end = line.dropFirst(5).firstIndex(of: "*") else { return nil }
            return Int(line[line.index(line.startIndex, offsetBy: 5)..<end]).map { ($0, line.contains("*tested*")) }
        }
        XCTAssertEqual(numbers.map(\.0), Array(1...numbers.count), "C1 … Cn, each once, in order")
        let start = try XCTUnwrap(d.range(of: "## 19. Conformance")), end = try XCTUnwrap(d.range(of: "## 20. "))
        let inList = d[start.upperBound..<end.lowerBound].components(separatedBy: "\n").filter { $0.hasPrefix("- **C") && $0.dropFirst(5).first?.isNumber == true }.count
        XCTAssertEqual(inList, numbers.count, "every rule stands in §19")

        let dir = Repository.path("Tests/LecternConformanceTests")
        var tests = Set<Int>()
        for f in try FileManager.default.contentsOfDirectory(atPath: dir) where f.hasSuffix(".swift") {
            let text = try String(contentsOfFile: dir + "/" + f, encoding: .utf8)
            // testC20AndC21…: one test for two rules.
            for part in text.components(separatedBy: "func testC").dropFirst() {
                var rest = Substring(part)
                while let n = Int(rest.prefix(while: \.isNumber)) {
                    tests.insert(n)
                    rest = rest.drop(while: \.isNumber)
                    guard rest.hasPrefix("AndC") else { break }
                    rest = rest.dropFirst(4)
                }
            }
        }
        let tested = Set(numbers.filter(\.1).map(\.0))
        XCTAssertEqual(tested.subtracting(tests).sorted(), [], "rules marked tested without a testC<N> in the conformance suite")
        XCTAssertEqual(tests.subtracting(Set(numbers.map(\.0))).sorted(), [], "conformance tests without a rule")
        XCTAssertEqual(tests.subtracting(tested).sorted(), [], "rules with a test but not marked tested")
    }
}
