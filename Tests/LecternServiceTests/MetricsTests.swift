import Foundation
import LecternClient
import LecternModel
import LecternProtocol
import LecternService
import LecternTestSupport
import XCTest

/// `/metrics` on `metrics_address`: scraped with curl over real TCP, checked with promtool
/// (Debian's prometheus package) and a strict parser, before and after what it counts.
final class MetricsTests: XCTestCase {
    func harness(floor: FloorMode = .open) throws -> ServiceHarness {
        try ServiceHarness(floor: floor) { $0.metricsAddress = ListenAddress(host: "127.0.0.1", port: 0) }
    }

    /// One scrape: checked by promtool and parsed strictly.
    func scrape(_ h: ServiceHarness, file: StaticString = #filePath, line: UInt = #line) throws -> PrometheusText {
        let port = try XCTUnwrap(h.service.metricsPort, "metrics are off", file: file, line: line)
        let r = try Fixtures.run("curl", ["-sS", "--fail", "--max-time", "10", "-D", "-", "http://127.0.0.1:\(port)/metrics"])
        XCTAssertEqual(r.status, 0, r.err, file: file, line: line)
        let all = String(decoding: r.out, as: UTF8.self)
        let parts = all.components(separatedBy: "\r\n\r\n")
        XCTAssertTrue(parts[0].lowercased().contains("content-type: text/plain; version=0.0.4"), parts[0], file: file, line: line)
        let body = parts.dropFirst().joined(separator: "\r\n\r\n")
        let promtool = try Fixtures.run(try tool("promtool"), ["check", "metrics"], stdin: Data(body.utf8))
        XCTAssertEqual(promtool.status, 0, "promtool: \(promtool.err)\n\(body)", file: file, line: line)
        return try PrometheusText(body)
    }

    func tool(_ name: String) throws -> String {
        for dir in ["/usr/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") { return "\(dir)/\(name)" }
        struct Missing: Error, CustomStringConvertible {
            let description: String
        }
        throw Missing(description: "\(name) is missing: board/install-deps installs it (Debian's prometheus package, board/debian-packages.txt)")
    }

    func testOffByDefault() throws {
        let h = try ServiceHarness()
        XCTAssertNil(h.service.metricsPort)
        XCTAssertNil(Config().metricsAddress)
    }

    func testScrapeBeforeAndAfterAPageTurnAnUploadAndAThrottledJoin() throws {
        let h = try harness()
        let before = try scrape(h)
        XCTAssertEqual(before.types["lectern_page_turn_seconds"], "histogram")
        XCTAssertEqual(before.value("lectern_page_turns_total"), 0)
        XCTAssertEqual(before.value("lectern_output_connected"), 1)
        XCTAssertEqual(before.value("lectern_output_virtual"), 1)
        XCTAssertEqual(before.value("lectern_output_width_pixels"), 1920)
        XCTAssertEqual(before.value("lectern_output_height_pixels"), 1080)
        XCTAssertEqual(before.value("lectern_devices", ["role": "presenter"]), 0)
        XCTAssertEqual(before.value("lectern_service_starts_total"), 1)
        XCTAssertEqual(before.value("lectern_uploads_total"), 0)
        XCTAssertEqual(before.value("lectern_floor_moderated"), 0)

        let alice = try h.presenter("Alice")
        let pdf = try Fixtures.numberedDeck(count: 3, in: Fixtures.tempDir("deck"))
        let stored = try alice.upload(path: pdf)
        _ = try alice.requestFloor()
        try alice.present(stored.content)
        try alice.control(.next)
        _ = try alice.waitForState { $0.screen.page == 2 }
        var after = try scrape(h)
        try eventually("two page turns counted") {
            after = try scrape(h)
            return after.value("lectern_page_turns_total") == 2
        }
        XCTAssertEqual(after.value("lectern_page_turn_seconds_count"), 2)
        XCTAssertGreaterThan(try XCTUnwrap(after.value("lectern_page_turn_seconds_sum")), 0)
        XCTAssertEqual(after.value("lectern_page_turn_seconds_bucket", ["le": "+Inf"]), 2)
        XCTAssertEqual(after.value("lectern_uploads_total"), 1)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: pdf)[.size] as? Int)
        XCTAssertEqual(after.value("lectern_upload_bytes_total"), Double(size))
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(after.value("lectern_storage_used_bytes")), Double(size))
        XCTAssertEqual(after.value("lectern_devices", ["role": "presenter"]), 1)
        XCTAssertEqual(after.value("lectern_floor_held"), 1)

        // Wrong passcodes until the throttle answers: errors by code, and the throttled count.
        let eve = try h.connect()
        for _ in 0..<5 { XCTAssertServerError(.wrongPasscode, try eve.register(name: "Eve", role: .presenter, passcode: "wrong-wrong")) }
        XCTAssertServerError(.tooManyAttempts, try eve.register(name: "Eve", role: .presenter, passcode: "wrong-wrong"))
        let throttled = try scrape(h)
        XCTAssertEqual(throttled.value("lectern_errors_total", ["code": "0x0101", "name": "wrongPasscode"]), 5)
        XCTAssertEqual(throttled.value("lectern_errors_total", ["name": "tooManyAttempts"]), 1)
        XCTAssertEqual(throttled.value("lectern_throttled_attempts_total"), 1)
    }

    func testStartsAreCountedAcrossRestartsOfTheSameDataDirectory() throws {
        let dir = Fixtures.tempDir("starts")
        for n in 1...2 {
            var c = Config.testRoom(dataDir: dir, room: "R", floor: .open, passcode: ServiceHarness.presenterPass, moderatorPasscode: ServiceHarness.moderatorPass)
            c.metricsAddress = ListenAddress(host: "127.0.0.1", port: 0)
            c.port = 0
            var o = Service.Options(config: c)
            o.host = "127.0.0.1"
            let s = try Service.start(options: o)
            defer { s.stop() }
            let port = try XCTUnwrap(s.metricsPort)
            let r = try Fixtures.run("curl", ["-sS", "--fail", "--max-time", "10", "http://127.0.0.1:\(port)/metrics"])
            let text = try PrometheusText(String(decoding: r.out, as: UTF8.self))
            XCTAssertEqual(text.value("lectern_service_starts_total"), Double(n))
        }
    }

    func testOnlyGetMetricsIsAnswered() throws {
        let h = try harness()
        let port = try XCTUnwrap(h.service.metricsPort)
        let other = try Fixtures.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/"])
        XCTAssertEqual(String(decoding: other.out, as: UTF8.self), "404")
        let post = try Fixtures.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "http://127.0.0.1:\(port)/metrics"])
        XCTAssertEqual(String(decoding: post.out, as: UTF8.self), "405")
    }

    func testTheStrictParserRefusesWhatPrometheusWouldNot() {
        for bad in [
            "x 1",   // no TYPE
            "# TYPE x gauge\nx{a=b} 1",   // unquoted label value
            "# TYPE x gauge\nx one",   // not a number
            "# TYPE x gauge\nx 1\nx 2",   // duplicate
            "# TYPE 1x gauge\n",   // bad name
            "# TYPE x gauge\nx{a=\"1\"\n",   // unterminated
        ] {
            XCTAssertThrowsError(try PrometheusText(bad), bad)
        }
        XCTAssertEqual(try PrometheusText("# HELP x X.\n# TYPE x gauge\nx{a=\"q\\\"\"} 2.5\n").value("x", ["a": "q\\\""]), 2.5)
    }

    /// board/prometheus/lectern-alerts.yml: promtool accepts it.
    func testTheAlertRulesAreValid() throws {
        let rules = Repository.root + "/board/prometheus/lectern-alerts.yml"
        let r = try Fixtures.run(try tool("promtool"), ["check", "rules", rules])
        XCTAssertEqual(r.status, 0, String(decoding: r.out, as: UTF8.self) + r.err)
    }
}
