import Foundation
import LecternClient
import LecternModel
import LecternSystem
import LecternProtocol
import LecternTestSupport

/// What the HTTPS attacks (issue 25, findings 1, 4 and 10) share: a room with TLS on as it
/// ships, clients pinned to its certificate, HTTP/1.1 over `TLSProbe`.
enum HTTPS {
    /// A room with TLS on, the web remote listening, the floor open.
    static func room(tweak: (inout Config) -> Void = { _ in }) throws -> ServiceHarness {
        try ServiceHarness(floor: .open, webRemote: true) { c in
            c.tls = true
            tweak(&c)
        }
    }

    static func fingerprint(_ h: ServiceHarness) throws -> CertificateFingerprint {
        guard let f = h.service.tlsIdentity?.fingerprint else { throw Fixtures.ToolError(description: "no TLS identity") }
        return f
    }

    /// A protocol connection over TLS, pinned, registered as `role`.
    static func join(_ h: ServiceHarness, _ name: String, role: Role = .presenter) throws -> LecternConnection {
        let c = try LecternConnection(host: "127.0.0.1", port: h.port, tls: .pinned(try fingerprint(h)))
        try c.register(name: name, role: role, passcode: role == .moderator ? ServiceHarness.moderatorPass : ServiceHarness.presenterPass)
        return c
    }

    /// A presenter holding the floor with `deck` on the wall and its download allowed: the
    /// presenter and the download's path (`/download/<token>`).
    static func offer(_ h: ServiceHarness, deck: String) throws -> (LecternConnection, String) {
        let a = try join(h, "Ana")
        _ = try a.requestFloor()
        try a.present(try a.upload(path: deck).content, page: 1)
        _ = try a.request(.audienceSet(.allowDownload))
        var path: String?
        try eventually("the download's address in the state") {
            path = try a.state().audience?.downloadURL
            return path != nil
        }
        return (a, path!)
    }

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
    }

    /// `GET` (or `HEAD`) `path` over TLS on the web remote's port; the whole response.
    static func get(_ h: ServiceHarness, _ path: String, method: String = "GET", from source: String? = nil, timeout: Double = 30) throws -> Response {
        let probe = try TLSProbe(port: h.service.httpPort ?? -1, from: source, fingerprint: try fingerprint(h))
        defer { probe.close() }
        probe.send(Array("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        let bytes = probe.read(timeout: timeout) { b in
            guard let end = Hostile.headEnd(b) else { return false }
            let length = Int(headers(b[..<end])["content-length"] ?? "") ?? 0
            return method == "HEAD" ? true : b.count - end >= length
        }
        guard let end = Hostile.headEnd(bytes) else { throw Fixtures.ToolError(description: "no response head (\(bytes.count) bytes)") }
        return Response(status: Hostile.status(bytes), headers: headers(bytes[..<end]), body: Array(bytes[end...]))
    }

    static func headers(_ head: ArraySlice<UInt8>) -> [String: String] {
        var out: [String: String] = [:]
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            out[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return out
    }

    /// Round trips of pings on `c` while `during` runs on another thread: p50 and p99, ms.
    static func pings(_ c: LecternConnection, during body: () throws -> Void) rethrows -> (p50: Double, p99: Double, count: Int) {
        let stop = Shared(false), times = Shared<[Double]>([])
        let done = DispatchGroup()
        done.enter()
        Thread.detachNewThread {
            var n: UInt32 = 1
            while !stop.value {
                let t = MonotonicClock.now()
                let ms = (try? c.request(.ping(nonce: n))) == nil ? Double.infinity : (MonotonicClock.now() - t) * 1000
                times.modify { $0.append(ms) }
                n += 1
                Thread.sleep(forTimeInterval: 0.05)   // the pinging pace, not a wait for anything
            }
            done.leave()
        }
        defer {
            stop.value = true
            done.wait()
        }
        try body()
        stop.value = true
        done.wait()
        let sorted = times.value.sorted()
        func pct(_ p: Double) -> Double { sorted.isEmpty ? .infinity : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))] }
        return (pct(0.5), pct(0.99), sorted.count)
    }
}
