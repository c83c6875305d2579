import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
@testable import LecternService
import LecternTestSupport
import XCTest

/// The upload bar on a slow Wi-Fi (a FlakyProxy forwarding 1 MB/s to the service): it moves
/// with the bytes the service confirmed (upload-progress), never ahead of them, and says the
/// rate and the time left.
final class UploadBarTests: XCTestCase {
    func testTheUploadBarNeverRunsAheadOfTheService() throws {
        let h = try ServiceHarness.web(floor: .open)
        let proxy = try FlakyProxy(to: h.service.httpPort ?? -1)
        defer { proxy.stop() }
        // A 3 MB PDF: padding lines after a real deck.
        var data = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.numberedDeck(count: 2, in: h.dir)))
        while data.count < 3_000_000 { data.append(contentsOf: Array(("%" + String(repeating: "q", count: 98) + "\n").utf8)) }
        let path = h.dir + "/slides.pdf"
        try data.write(to: URL(fileURLWithPath: path))

        guard let driver = h.driver else { return XCTFail("no browsers") }
        let b = try driver.session(width: 390, height: 844)
        try b.open(h.url(via: proxy))
        _ = try b.wait(for: "#login-form")
        try h.joinAndWait(b, name: "Ana's phone")
        // Watch the frames from the service (before the page's own handler sees them) and the
        // bar, every 5 ms.
        try b.execute(
            """
            const size = arguments[0], l = window.Lectern.app.link, C = window.Lectern.protocol.C;
            const bar = document.getElementById('upload-bar'), text = document.getElementById('upload-text');
            window.__w = { confirmed: 0, ahead: [], samples: [] };
            const orig = l.dispatch.bind(l);
            l.dispatch = (cmd, dev, tag, body) => {
              if (cmd === C.uploadProgress) {
                const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
                window.__w.confirmed = Math.max(window.__w.confirmed, Number(v.getBigUint64(32)));
              }
              return orig(cmd, dev, tag, body);
            };
            window.__w.timer = setInterval(() => {
              if (!bar.hasAttribute('value')) return;
              const shown = bar.value, truth = window.__w.confirmed / size;
              window.__w.samples.push([shown, truth, text.textContent]);
              if (shown > truth + 1e-9) window.__w.ahead.push([shown, truth, text.textContent]);
            }, 5);
            """, [data.count])
        proxy.throttleUpstream(bytesPerSecond: 1_000_000)
        let t0 = MonotonicClock.now()
        try b.type(try XCTUnwrap(b.find("#file-input")), path)
        try b.poll("slides.pdf ready", timeout: 60) { try b.text("#upload-text") == "slides.pdf is ready." }
        let seconds = MonotonicClock.now() - t0
        let w = try b.execute("clearInterval(window.__w.timer); return [window.__w.ahead, window.__w.samples]") as? [[[Any]]] ?? []
        let ahead = w.first ?? [], samples = w.count > 1 ? w[1] : []
        XCTAssertEqual(ahead.count, 0, "the bar ran ahead of the bytes the service confirmed: \(ahead.prefix(3))")
        let values = Set(samples.compactMap { $0.first as? Double })
        XCTAssertGreaterThanOrEqual(values.count, 6, "the bar moved in steps: \(values.sorted())")
        let texts = samples.compactMap { $0.count > 2 ? $0[2] as? String : nil }
        XCTAssertTrue(texts.contains { $0.contains("MB/s") || $0.contains("kB/s") }, "a rate: \(Set(texts).prefix(5))")
        XCTAssertTrue(texts.contains { $0.hasSuffix("s left") }, "the time left: \(Set(texts).prefix(5))")
        // "Checking" comes only once everything is confirmed.
        for s in samples where (s.count > 2 ? s[2] as? String : nil)?.hasPrefix("Checking") == true {
            XCTAssertEqual(s[1] as? Double ?? 0, 1, accuracy: 1e-9, "Checking before the last byte was confirmed")
        }
        print(String(format: "upload bar: 3.0 MB at 1 MB/s in %.1f s, %d distinct bar values, never ahead of the service", seconds, values.count))
        try shoot(b, "upload-done", width: 390, height: 844)
    }
}
