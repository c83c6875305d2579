import Foundation
import LecternModel
import LecternRender
import LecternTestSupport
import XCTest

/// The idle screen with the web remote on: its biggest line is the address a person types
/// in a phone's browser, drawn in the text column beside the QR code.
final class IdleScreenURLTests: XCTestCase {
    func testTheBiggestLineIsTheURL() throws {
        let s = IdleScreen(room: "Room 4.12", addresses: ["192.0.2.7"], port: 7420, url: "http://192.0.2.7:8080/")
        XCTAssertEqual(s.typedURL, "192.0.2.7:8080")
        let lines = s.lines(width: 1100, height: 1080)
        let biggest = try XCTUnwrap(lines.max { $0.size < $1.size })
        XCTAssertEqual(biggest.text, "192.0.2.7:8080")
        XCTAssertGreaterThanOrEqual(biggest.size, 1080 / 12, "readable from the back of the room")
        XCTAssertTrue(lines.contains { $0.text.contains("port 7420") }, "the protocol's port is still there, small")
        // A long address still fits the column: the size follows the width.
        let long = IdleScreen(room: "R", addresses: ["fd12:3456:789a:1::22"], port: 7420, url: "http://[fd12:3456:789a:1::22]:8080/")
        let l = try XCTUnwrap(long.lines(width: 1100, height: 1080).max { $0.size < $1.size })
        XCTAssertLessThanOrEqual(l.size * 0.64 * Double(l.text.count), 1100.5)

        // Drawn: text rows in the column left of the QR code; the URL's band is the tallest.
        let frame = Frame(width: 1920, height: 1080)
        s.draw(into: frame)
        var bands: [(start: Int, end: Int)] = []
        var inBand = false
        for y in 0..<1000 {
            let ink = stride(from: 40, to: 1100, by: 2).contains { frame.pixel(x: $0, y: y) != .black }
            if ink && !inBand { bands.append((y, y)) }
            if ink { bands[bands.count - 1].end = y }
            inBand = ink
        }
        let heights = bands.map { $0.end - $0.start }
        XCTAssertGreaterThanOrEqual(bands.count, 4, "room, hint, URL and the connect line: \(bands)")
        XCTAssertEqual(heights.firstIndex(of: heights.max() ?? 0), 2, "the third line (the URL) is the tallest: \(bands)")
        // For people: the picture, beside the web remote's screenshots.
        let dir = Repository.path(".build/test-output/web")
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try PNG.encode(frame).write(to: URL(fileURLWithPath: dir + "/idle-screen-url.png"))
    }
}
