import Foundation
import LecternModel
import LecternTestSupport
import XCTest

/// `/metrics` on the virtual board (issue 19 must 3): lecternd in QEMU on a real KMS
/// driver, scraped from the host through a forwarded port before and after a page turn
/// and an unplugged display; each scrape checked by promtool and a strict parser.
final class BoardMetricsTests: XCTestCase {
    func scrape(_ port: Int) throws -> PrometheusText {
        let r = try Fixtures.run("curl", ["-sS", "--fail", "--max-time", "10", "http://127.0.0.1:\(port)/metrics"])
        guard r.status == 0 else { throw Fixtures.ToolError(description: "curl /metrics: \(r.err)") }
        let promtool = try Fixtures.run("promtool", ["check", "metrics"], stdin: r.out)
        XCTAssertEqual(promtool.status, 0, "promtool: \(promtool.err)")
        return try PrometheusText(String(decoding: r.out, as: UTF8.self))
    }

    func testScrapeBeforeAndAfterAPageTurnAndAnUnplug() throws {
        let metricsPort = try Fixtures.freePort()
        let board = try VirtualBoardTests.Board(
            device: "virtio", width: 1920, height: 1080, extraConfig: "metrics_address = \"0.0.0.0:9420\"", forwards: ["\(metricsPort):9420"])
        // The metrics listener comes up just after the protocol port.
        var first: PrometheusText?
        try eventually("/metrics to answer; log: \(board.log)", timeout: 30, interval: 0.2) {
            first = try? scrape(metricsPort)
            return first != nil
        }
        let before = try XCTUnwrap(first)
        XCTAssertEqual(before.value("lectern_output_connected"), 1)
        XCTAssertEqual(before.value("lectern_output_virtual"), 0, "KMS, not the virtual display")
        XCTAssertEqual(before.value("lectern_output_width_pixels"), 1920)
        let turns = try XCTUnwrap(before.value("lectern_page_turns_total"))

        let pdf = try Fixtures.numberedDeck(count: 3, in: board.dir)
        try board.lectern(["floor", "request"])
        try board.lectern(["present", pdf])
        try board.lectern(["next"])
        var after = before
        try eventually("the page turns counted", timeout: 30, interval: 0.2) {
            after = try scrape(metricsPort)
            return (after.value("lectern_page_turns_total") ?? 0) >= turns + 2
        }
        XCTAssertEqual(after.value("lectern_page_turn_seconds_count"), after.value("lectern_page_turns_total"))
        XCTAssertGreaterThan(try XCTUnwrap(after.value("lectern_page_turn_seconds_sum")), 0)
        XCTAssertEqual(after.value("lectern_output_connected"), 1)

        // The projector's cable pulled: the gauge goes to 0 (what the alert rule watches).
        let r = try Fixtures.run(board.vboard, ["unplug", "--run-dir", board.dir])
        XCTAssertEqual(r.status, 0, r.err)
        var unplugged = after
        try eventually("lectern_output_connected to be 0; log: \(board.log)", timeout: 30, interval: 0.2) {
            unplugged = try scrape(metricsPort)
            return unplugged.value("lectern_output_connected") == 0
        }
        XCTAssertEqual(unplugged.value("lectern_service_starts_total"), before.value("lectern_service_starts_total"), "no restart")
        let back = try Fixtures.run(board.vboard, ["resize", "--run-dir", board.dir, "1920", "1080"])
        XCTAssertEqual(back.status, 0, back.err)
        try eventually("lectern_output_connected back to 1; log: \(board.log)", timeout: 30, interval: 0.2) {
            try scrape(metricsPort).value("lectern_output_connected") == 1
        }
    }
}
