import LecternModel
import XCTest

/// The landing page's place among the plain answers (docs/protocol.md §28): only `GET /` or
/// `HEAD /`, only while the certificate is one browsers warn about, and always on to this
/// appliance over https://.
///
/// Why these tests name plain HTTP: they are about the plain port's answers. Every call
/// passes `allowPlain: false`, the shipped default (TLS on, plain only answers, never serves
/// the remote); no service runs and nothing here turns TLS off.
final class LandingAnswerTests: XCTestCase {
    func head(_ s: String) -> [UInt8] { Array(s.utf8) }

    func testTheLandingAnswers() {
        let appliance = PlainHTTPAnswer.Appliance(arrivedOn: "192.0.2.7:8080", names: ["lectern-412.local"])
        let rows: [(String, Bool, PlainHTTPAnswer)] = [
            ("GET / HTTP/1.1\r\nHost: 192.0.2.7:8080\r\n", true, .landing("https://192.0.2.7:8080/")),
            ("HEAD / HTTP/1.1\r\nHost: lectern-412.local:8080\r\n", true, .landing("https://lectern-412.local:8080/")),
            ("GET /?from=qr HTTP/1.1\r\nHost: 192.0.2.7:8080\r\n", true, .landing("https://192.0.2.7:8080/")),
            // Another machine's name: on to the address the connection came to.
            ("GET / HTTP/1.1\r\nHost: evil.example\r\n", true, .landing("https://192.0.2.7:8080/")),
            // Anything but `/` is sent on as before.
            ("GET /viewer.html HTTP/1.1\r\nHost: 192.0.2.7:8080\r\n", true, .redirect("https://192.0.2.7:8080/viewer.html")),
            ("GET /index.html HTTP/1.1\r\nHost: 192.0.2.7:8080\r\n", true, .redirect("https://192.0.2.7:8080/index.html")),
            // A certificate browsers know: no landing page.
            ("GET / HTTP/1.1\r\nHost: 192.0.2.7:8080\r\n", false, .redirect("https://192.0.2.7:8080/")),
        ]
        for (request, landing, expected) in rows {
            // allowPlain: false is the shipped default (TLS on): this checks the plain port's answer, nothing is turned off.
            XCTAssertEqual(PlainHTTPAnswer.answer(head: head(request), allowPlain: false, appliance: appliance, landing: landing), expected, request.debugDescription)
        }
        // Never a plain WebSocket, a POST or a bad head, landing page or not.
        // allowPlain: false is the shipped default (TLS on): this checks the plain port's answer, nothing is turned off.
        guard case .refuse(403, _) = PlainHTTPAnswer.answer(head: head("GET /ws HTTP/1.1\r\nHost: a\r\n"), allowPlain: false, landing: true) else {
            return XCTFail("a plain WebSocket is refused")
        }
        // allowPlain: false is the shipped default (TLS on): this checks the plain port's answer, nothing is turned off.
        guard case .refuse(403, _) = PlainHTTPAnswer.answer(head: head("POST / HTTP/1.1\r\nHost: a\r\n"), allowPlain: false, landing: true) else {
            return XCTFail("a plain POST is refused")
        }
        // allowPlain: false is the shipped default (TLS on): this checks the plain port's answer, nothing is turned off.
        guard case .refuse(400, _) = PlainHTTPAnswer.answer(head: head("GET / HTTP/1.1\r\nHost: a\"><script>\r\n"), allowPlain: false, landing: true) else {
            return XCTFail("a Host that isn't a name is refused")
        }
    }
}
