import Foundation
import Glibc
import LecternService
import LecternTestSupport
import XCTest

/// The sd_notify client, against this test's own AF_UNIX datagram socket standing in for
/// systemd's NOTIFY_SOCKET.
final class SystemdNotifyTests: XCTestCase {
    /// A bound AF_UNIX datagram socket; `abstract` names live in Linux's abstract namespace.
    final class FakeSystemd {
        let fd: Int32
        let name: String   // what NOTIFY_SOCKET says
        private let path: String?

        init(abstract: Bool) throws {
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw Fixtures.ToolError(description: "socket: \(String(cString: strerror(errno)))") }
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            var bytes: [UInt8]
            if abstract {
                let n = "lectern-test-\(UUID().uuidString.prefix(8))"
                name = "@" + n
                bytes = [0] + Array(n.utf8)
                path = nil
            } else {
                let p = Fixtures.tempDir("notify") + "/notify.sock"
                name = p
                bytes = Array(p.utf8)
                path = p
            }
            withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: bytes) }
            let len = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
            let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
            guard rc == 0 else { throw Fixtures.ToolError(description: "bind \(name): \(String(cString: strerror(errno)))") }
            var tv = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }

        /// The next datagram, or nil after 2 s of nothing.
        func receive() -> String? {
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buf, buf.count, 0)
            return n < 0 ? nil : String(decoding: buf[0..<n], as: UTF8.self)
        }

        deinit {
            close(fd)
            if let path { unlink(path) }
        }
    }

    func testReadyAndWatchdogArriveOnAPathSocket() throws {
        let systemd = try FakeSystemd(abstract: false)
        let notify = SystemdNotify(environment: ["NOTIFY_SOCKET": systemd.name, "WATCHDOG_USEC": "10000000"])
        XCTAssertTrue(notify.isEnabled)
        XCTAssertEqual(notify.watchdogInterval, 5.0)

        notify.ready()
        XCTAssertEqual(systemd.receive(), "READY=1")
        notify.watchdog()
        XCTAssertEqual(systemd.receive(), "WATCHDOG=1")
        notify.status("Presenting deck.pdf, page 3\nof 12")
        XCTAssertEqual(systemd.receive(), "STATUS=Presenting deck.pdf, page 3 of 12")
        notify.reloading()
        let reloading = try XCTUnwrap(systemd.receive())
        XCTAssertTrue(reloading.hasPrefix("RELOADING=1\nMONOTONIC_USEC="), reloading)
        XCTAssertNotNil(UInt64(reloading.split(separator: "=").last ?? ""), reloading)
        notify.ready(status: "idle")
        XCTAssertEqual(systemd.receive(), "READY=1\nSTATUS=idle")
        notify.stopping()
        XCTAssertEqual(systemd.receive(), "STOPPING=1")
    }

    func testWatchdogArrivesOnAnAbstractSocket() throws {
        let systemd = try FakeSystemd(abstract: true)
        XCTAssertTrue(systemd.name.hasPrefix("@"))
        let notify = SystemdNotify(environment: ["NOTIFY_SOCKET": systemd.name])
        XCTAssertTrue(notify.send("READY=1"))
        XCTAssertEqual(systemd.receive(), "READY=1")
        notify.watchdog()
        XCTAssertEqual(systemd.receive(), "WATCHDOG=1")
    }

    func testTheProcessEnvironmentIsRead() throws {
        let systemd = try FakeSystemd(abstract: false)
        setenv("NOTIFY_SOCKET", systemd.name, 1)
        setenv("WATCHDOG_USEC", "3000000", 1)
        setenv("WATCHDOG_PID", "\(getpid())", 1)
        defer { unsetenv("NOTIFY_SOCKET"); unsetenv("WATCHDOG_USEC"); unsetenv("WATCHDOG_PID") }
        let notify = SystemdNotify()
        XCTAssertEqual(notify.watchdogInterval, 1.5)
        notify.watchdog()
        XCTAssertEqual(systemd.receive(), "WATCHDOG=1")
    }

    func testWithoutNotifySocketEverythingIsANoOp() {
        let notify = SystemdNotify(environment: [:])
        XCTAssertFalse(notify.isEnabled)
        XCTAssertNil(notify.watchdogInterval)
        XCTAssertFalse(notify.send("READY=1"))
        notify.ready(); notify.watchdog(); notify.status("x"); notify.reloading(); notify.stopping()

        // A socket nobody listens on: sending fails quietly.
        XCTAssertFalse(SystemdNotify(environment: ["NOTIFY_SOCKET": "/nonexistent/notify"]).send("READY=1"))
        // Not a path or an abstract name: ignored.
        XCTAssertFalse(SystemdNotify(environment: ["NOTIFY_SOCKET": "relative/notify"]).isEnabled)
    }

    func testTheWatchdogIntervalIsHalfOfWatchdogUsecForThisProcessOnly() {
        XCTAssertEqual(SystemdNotify(environment: ["WATCHDOG_USEC": "10000000"], pid: 42).watchdogInterval, 5)
        XCTAssertEqual(SystemdNotify(environment: ["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "42"], pid: 42).watchdogInterval, 5)
        XCTAssertNil(SystemdNotify(environment: ["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "43"], pid: 42).watchdogInterval)
        XCTAssertNil(SystemdNotify(environment: ["WATCHDOG_USEC": "0"], pid: 42).watchdogInterval)
        XCTAssertNil(SystemdNotify(environment: ["WATCHDOG_USEC": "ten"], pid: 42).watchdogInterval)
    }
}
