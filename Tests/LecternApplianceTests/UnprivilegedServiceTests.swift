import Foundation
import Glibc
import LecternClient
import LecternTestSupport
import XCTest

/// lecternd as an unprivileged user, as the unit runs it (User=lectern): connections on both
/// ports are answered. (It once set TCP_NODELAY at the socket level, i.e. SO_DEBUG, which
/// only root may set: as any other user every accepted connection was closed at once.)
final class UnprivilegedServiceTests: XCTestCase {
    func testConnectionsAreAnsweredWhenTheServiceIsNotRoot() throws {
        guard getuid() == 0 else { return XCTFail("this test drops to the user nobody: run as root (make test does, as CI)") }
        let dir = Fixtures.tempDir("unprivileged")
        chmod(dir, 0o755)
        let port = try Fixtures.freePort(), http = try Fixtures.freePort()
        let config = """
            room = "Unprivileged"
            port = \(port)
            http_port = \(http)
            passcode = "unprivileged-1"
            moderator_passcode = "unprivileged-2"
            data_dir = "\(dir)/data"
            """
        try config.write(toFile: dir + "/lectern.toml", atomically: true, encoding: .utf8)
        chmod(dir + "/lectern.toml", 0o644)
        XCTAssertEqual(mkdir(dir + "/data", 0o700), 0)
        XCTAssertEqual(chown(dir + "/data", 65534, 65534), 0)
        let lecternd = try Fixtures.binary("lecternd")
        let log = dir + "/lecternd.log"
        let r = try Fixtures.run(
            "bash",
            [
                "-c", "setpriv --reuid=65534 --regid=65534 --clear-groups \"$0\" \"$@\" >\"\(log)\" 2>&1 </dev/null & echo $!",
                lecternd, "--config", dir + "/lectern.toml", "--display", "virtual",
            ])
        let pid = Int32(String(decoding: r.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        XCTAssertGreaterThan(pid, 0, r.err)
        defer {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            for _ in 0..<100 where waitpid(pid, &status, WNOHANG) == 0 { usleep(50_000) }
        }
        var hello = false
        try eventually("the unprivileged lecternd to say hello; log: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")", timeout: 60, interval: 0.2) {
            // On its defaults: TLS, with the certificate it made as that user in its data dir.
            if let c = try? LecternConnection(host: "127.0.0.1", port: port, timeout: 2, tls: ClientTLS { _ in true }) { c.close(); hello = true }
            return hello
        }
        let page = try Fixtures.run("curl", ["-sSk", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "20", "https://127.0.0.1:\(http)/"])
        XCTAssertEqual(String(decoding: page.out, as: UTF8.self), "200", page.err)
    }
}
