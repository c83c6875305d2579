import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternTestSupport

/// Issue 4's figures on the virtual board (Debian's kernel under QEMU/TCG, bochs KMS):
/// service start to the first flip, and page-turn command to flip (the control-ok comes
/// after the flip event), measured from the host through the forwarded port. TCG makes the
/// guest many times slower than a Pi: these are an upper bound, and a trend to watch.
func runBoardBenchmarks(turns: Int) throws {
    let repo = Repository.root
    let vboard = repo + "/board/vboard/vboard"
    let dir = Fixtures.tempDir("boardbench")
    let port = 17000 + Int(getpid() % 2000)
    try """
    room = "Bench Room"
    port = 7420
    passcode = "bench-board-pass"
    floor = "open"
    data_dir = "\(dir)/data"
    """.write(toFile: dir + "/lectern.toml", atomically: true, encoding: .utf8)
    chmod(dir + "/lectern.toml", 0o600)
    let lecternd = repo + "/.build/release/lecternd"
    guard FileManager.default.isExecutableFile(atPath: lecternd) else { throw Fixtures.ToolError(description: "build lecternd in release first") }
    let boot = try Fixtures.run(
        vboard,
        [
            "boot", "--run-dir", dir, "--device", "bochs", "--forward", "\(port):7420", "--",
            lecternd, "--config", dir + "/lectern.toml", "--display", "kms", "--data-dir", "/run/lectern",
        ])
    defer { _ = try? Fixtures.run(vboard, ["stop", "--run-dir", dir]) }
    guard boot.status == 0 else { throw Fixtures.ToolError(description: "vboard: \(String(decoding: boot.out, as: UTF8.self)) \(boot.err)") }
    var c: LecternConnection?
    try eventually("lecternd to come up in the guest", timeout: 120, interval: 0.2) {
        c = try? LecternConnection(host: "127.0.0.1", port: port, timeout: 2, tls: ClientTLS { _ in true })   // lecternd on its defaults: TLS
        return c != nil
    }
    guard let c else { throw Fixtures.ToolError(description: "lecternd did not come up in the guest") }
    var firstFrame: Substring = "?"
    // The guest's log reaches us through 9p; without the figure in 10 s, it is reported as "?".
    try? eventually("the first-frame figure in the guest's log", timeout: 10, interval: 0.2) {
        let log = (try? String(contentsOfFile: dir + "/guest.log", encoding: .utf8)) ?? ""
        guard let v = log.components(separatedBy: "start to first frame on the output: ").dropFirst().first?.prefix(while: { $0.isNumber }),
            !v.isEmpty
        else { return false }
        firstFrame = v
        return true
    }
    try c.register(name: "bench", role: .presenter, passcode: "bench-board-pass")
    _ = try c.requestFloor()
    let deck = try Fixtures.numberedDeck(count: 12, in: dir)
    try c.present(try c.upload(path: deck).content)
    var times: [Double] = []
    var page = 1
    for i in 0..<turns {
        Fixtures.wait(seconds: 0.6)   // a presenter's pause: the neighbour gets prerendered in the guest
        let forward = (i / 8) % 2 == 0
        if (forward && page == 12) || (!forward && page == 1) { continue }
        let t0 = MonotonicClock.now()
        try c.control(forward ? .next : .prev)
        times.append(MonotonicClock.now() - t0)
        page += forward ? 1 : -1
    }
    print("virtual board (QEMU TCG, bochs-display 1920x1080, release lecternd):")
    print("  service start to first flip: \(firstFrame) ms (process start in the guest to the first frame on the scanout)")
    print("  page turn, command to flip: p50 \(ms(percentile(times, 0.5)))  p99 \(ms(percentile(times, 0.99)))  (\(times.count) turns, from the host)")
}
