import Foundation
import Glibc
import LecternProtocol
import LecternTestSupport

/// A small W3C WebDriver client (https://www.w3.org/TR/webdriver2/): enough to drive a
/// headless Chromium through chromedriver — open pages, find, click, type, press keys, run
/// scripts, take screenshots.
struct WebDriverError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Blocking HTTP/1.1 over a raw socket, for chromedriver (http://) and for the web remote
/// itself (https:// pinned to the web tests' certificate, `WebTLS`, unless `pin` says another).
/// (Not URLSession: Foundation on Linux rejects chromedriver's "Name:value" headers with
/// "Failed writing header".)
enum HTTP {
    struct Response {
        let status: Int
        let headers: [String: String]   // lower-cased names
        let body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func send(
        _ method: String, _ url: String, body: Data? = nil, headers: [String: String] = [:],
        timeout: Double = 60, pin: CertificateFingerprint? = nil
    ) throws -> Response {
        // http://host:port/path or https://host:port/path only.
        let https = url.hasPrefix("https://")
        guard https || url.hasPrefix("http://") else { throw WebDriverError("bad URL \(url)") }
        let rest = url.dropFirst(https ? "https://".count : "http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let hostPort = rest[..<slash], path = slash == rest.endIndex ? "/" : String(rest[slash...])
        let parts = hostPort.split(separator: ":")
        guard parts.count == 2, let port = Int(parts[1]) else { throw WebDriverError("bad URL \(url)") }
        let tls = https ? try pin ?? ServiceHarness.WebTLS.shared().certificates.fingerprint : nil
        let socket = try RawSocket(host: String(parts[0]), port: port, tls: tls)
        defer { socket.close() }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: \(hostPort)\r\nConnection: close\r\n"
        for (k, v) in headers { request += "\(k): \(v)\r\n" }
        if let body { request += "Content-Length: \(body.count)\r\n" }
        request += "\r\n"
        socket.send(Array(request.utf8) + (body.map { [UInt8]($0) } ?? []))

        let deadline = Date().addingTimeInterval(timeout)
        var buffer: [UInt8] = []
        var headEnd: Int?
        var status = 0, fields: [String: String] = [:]
        while true {
            if headEnd == nil, let r = find([13, 10, 13, 10], in: buffer) {
                headEnd = r + 4
                let lines = String(decoding: buffer[..<r], as: UTF8.self).components(separatedBy: "\r\n")
                status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
                for l in lines.dropFirst() {
                    guard let c = l.firstIndex(of: ":") else { continue }
                    fields[l[..<c].lowercased()] = l[l.index(after: c)...].trimmingCharacters(in: .whitespaces)
                }
            }
            if let h = headEnd {
                let noBody = method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status)
                if noBody { return Response(status: status, headers: fields, body: Data()) }
                if let n = fields["content-length"].flatMap({ Int($0) }), buffer.count - h >= n {
                    return Response(status: status, headers: fields, body: Data(buffer[h..<h + n]))
                }
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw WebDriverError("\(method) \(url): no complete answer in \(Int(timeout)) s") }
            guard let bytes = socket.receive(timeout: min(left, 1)) else { continue }
            if bytes.isEmpty {   // closed: the body is what came
                guard let h = headEnd else { throw WebDriverError("\(method) \(url): closed without an answer") }
                return Response(status: status, headers: fields, body: Data(buffer[h...]))
            }
            buffer += bytes
        }
    }

    static func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        for i in 0...(hay.count - needle.count) where hay[i] == needle[0] && Array(hay[i..<i + needle.count]) == needle { return i }
        return nil
    }
}

/// chromedriver, started on a free port for one test and stopped at the end.
final class ChromeDriver {
    let process = Process()
    let port: Int
    let base: String
    let logPath: String
    private(set) var sessions: [WebSession] = []
    private var profiles: [String] = []

    static func executable(_ candidates: [String], package: String) throws -> String {
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw WebDriverError(
                "\(candidates[0]) is missing: install the Debian package '\(package)' (board/install-deps, as root, installs everything in board/debian-packages.txt)")
        }
        return path
    }

    static var chromium: String {
        get throws { try executable(["/usr/lib/chromium/chromium", "/usr/bin/chromium"], package: "chromium") }
    }

    /// `environment`: variables to set for chromedriver and the Chromium it starts (a
    /// `HOME` whose NSS database trusts a test CA, for HTTPS).
    init(environment: [String: String] = [:]) throws {
        let driver = try Self.executable(["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"], package: "chromium-driver")
        _ = try Self.chromium
        port = try Self.freePort()
        base = "http://127.0.0.1:\(port)"
        logPath = Fixtures.tempDir("chromedriver") + "/chromedriver.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: driver)
        process.arguments = ["--port=\(port)", "--log-path=\(logPath)"]
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        // Ready when /status says so.
        var last = ""
        let base = self.base, process = self.process
        try eventually("chromedriver to be ready (\(last)); log: \(log)", timeout: 30, interval: 0.1) {
            do {
                let r = try HTTP.send("GET", base + "/status", timeout: 2)
                let json = try JSONSerialization.jsonObject(with: r.body) as? [String: Any]
                if let value = json?["value"] as? [String: Any], value["ready"] as? Bool == true { return true }
                last = r.text
            } catch { last = "\(error)" }
            return !process.isRunning
        }
        guard process.isRunning else { throw WebDriverError("chromedriver exited (\(process.terminationStatus)); log: \(log)") }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)).map { String($0.suffix(4000)) } ?? "" }

    /// A new headless Chromium with a window (and viewport) of `width`×`height` CSS pixels;
    /// `arguments` are added to its command line (Chromium's fake camera, say).
    func session(width: Int, height: Int, arguments: [String] = []) throws -> WebSession {
        let profile = Fixtures.tempDir("chromium-profile")
        profiles.append(profile)
        let caps: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": try Self.chromium,
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--window-size=\(width),\(height)", "--hide-scrollbars", "--force-device-scale-factor=1",
                            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                            "--user-data-dir=\(profile)",
                        ] + arguments,
                    ] as [String: Any],
                ] as [String: Any]
            ]
        ]
        let value = try call("POST", "/session", caps, timeout: 90)
        guard let v = value as? [String: Any], let id = v["sessionId"] as? String else {
            throw WebDriverError("no session id in \(String(describing: value))")
        }
        let s = WebSession(driver: self, id: id)
        sessions.append(s)
        try s.setViewport(width: width, height: height)
        return s
    }

    /// One WebDriver command; returns its `value`, throws its error.
    @discardableResult
    func call(_ method: String, _ path: String, _ body: Any? = nil, timeout: Double = 60) throws -> Any? {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? (method == "POST" ? Data("{}".utf8) : nil)
        let r = try HTTP.send(method, base + path, body: data, headers: ["Content-Type": "application/json; charset=utf-8"], timeout: timeout)
        let json = try? JSONSerialization.jsonObject(with: r.body, options: [.fragmentsAllowed])
        let value = (json as? [String: Any])?["value"]
        if let err = value as? [String: Any], let kind = err["error"] as? String {
            throw WebDriverError("\(method) \(path): \(kind): \(err["message"] as? String ?? "")")
        }
        guard r.status == 200 else { throw WebDriverError("\(method) \(path): HTTP \(r.status): \(r.text.prefix(500))") }
        return value.flatMap { $0 is NSNull ? nil : $0 }
    }

    func quit() {
        for s in sessions { try? s.close() }
        sessions = []
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        for p in profiles { try? FileManager.default.removeItem(atPath: p) }
        profiles = []
        try? FileManager.default.removeItem(atPath: (logPath as NSString).deletingLastPathComponent)
    }

    deinit { quit() }

    static func freePort() throws -> Int { try Fixtures.freePort() }
}

/// One browser window.
final class WebSession {
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"
    let driver: ChromeDriver
    let id: String
    private var closed = false

    init(driver: ChromeDriver, id: String) {
        self.driver = driver
        self.id = id
    }

    struct Element { let id: String }

    @discardableResult
    func call(_ method: String, _ path: String, _ body: Any? = nil) throws -> Any? {
        try driver.call(method, "/session/\(id)\(path)", body)
    }

    func open(_ url: String) throws { try call("POST", "/url", ["url": url]) }

    func reload() throws { try call("POST", "/refresh") }

    /// The first element matching a CSS selector, or nil.
    func find(_ css: String) throws -> Element? {
        let v = try call("POST", "/elements", ["using": "css selector", "value": css])
        guard let list = v as? [[String: Any]], let first = list.first, let eid = first[Self.elementKey] as? String else { return nil }
        return Element(id: eid)
    }

    /// Waits (polling) for an element matching `css` that is displayed.
    func wait(for css: String, timeout: Double = 20, file: StaticString = #filePath, line: UInt = #line) throws -> Element {
        var found: Element?
        try poll("\(css) to appear", timeout: timeout) {
            guard let e = try find(css) else { return false }
            guard try displayed(e) else { return false }
            found = e
            return true
        }
        return found!
    }

    func displayed(_ e: Element) throws -> Bool {
        try call("GET", "/element/\(e.id)/displayed") as? Bool ?? false
    }

    func click(_ e: Element) throws {
        // Centre it first: the page's sticky bar must not cover it.
        try execute("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", [elementArg(e)])
        try call("POST", "/element/\(e.id)/click")
    }

    /// Clicks what `css` finds. A page that draws its state again replaces elements (the
    /// audience page's wall map on each state): an element replaced between finding it and
    /// clicking it is found again, a few times, as a person's tap lands on what is there.
    func click(_ css: String, timeout: Double = 20) throws {
        try foundAgainIfReplaced { try click(try wait(for: css, timeout: timeout)) }
    }

    /// `body` (which finds an element and uses it) again when the element it found was
    /// replaced before it was used (a page drawing its state again), five times at most.
    func foundAgainIfReplaced<T>(_ body: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                return try body()
            } catch let e where attempt < 5 && "\(e)".contains("stale element reference") {
                attempt += 1
            }
        }
    }

    func type(_ e: Element, _ text: String) throws {
        // Centre it first, as for a click: the page's bottom bar must not cover a field.
        try execute("if (arguments[0].type !== 'file') arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", [elementArg(e)])
        try call("POST", "/element/\(e.id)/value", ["text": text])
    }

    func clear(_ e: Element) throws { try call("POST", "/element/\(e.id)/clear") }

    func text(_ e: Element) throws -> String { try call("GET", "/element/\(e.id)/text") as? String ?? "" }

    func text(_ css: String) throws -> String {
        try foundAgainIfReplaced {
            guard let e = try find(css) else { return "" }
            return try text(e)
        }
    }

    func elementArg(_ e: Element) -> [String: String] { [Self.elementKey: e.id] }

    /// Runs JavaScript in the page (`return …` gives a value back).
    @discardableResult
    func execute(_ script: String, _ args: [Any] = []) throws -> Any? {
        try call("POST", "/execute/sync", ["script": script, "args": args])
    }

    /// Runs async JavaScript: the script calls `arguments[arguments.length - 1](value)`.
    @discardableResult
    func executeAsync(_ script: String, _ args: [Any] = []) throws -> Any? {
        try call("POST", "/timeouts", ["script": 120_000])
        return try call("POST", "/execute/async", ["script": script, "args": args])
    }

    /// Presses and releases keys (WebDriver key values, e.g. "\u{E014}" for ArrowRight) on
    /// whatever has the focus.
    func press(_ keys: [String]) throws {
        var actions: [[String: Any]] = []
        for k in keys {
            actions.append(["type": "keyDown", "value": k])
            actions.append(["type": "keyUp", "value": k])
        }
        try call("POST", "/actions", ["actions": [["type": "key", "id": "keyboard", "actions": actions]]])
        try call("DELETE", "/actions")
    }

    static let arrowLeft = "\u{E012}", arrowRight = "\u{E014}", pageUp = "\u{E00E}", pageDown = "\u{E00F}", space = " "

    /// The viewport (not the window) made `width`×`height`.
    func setViewport(width: Int, height: Int) throws {
        for _ in 0..<5 {
            let v = try execute("return [window.innerWidth, window.innerHeight, window.outerWidth, window.outerHeight]") as? [Int] ?? []
            guard v.count == 4 else { throw WebDriverError("no window size") }
            if v[0] == width && v[1] == height { return }
            let w = width + (v[2] - v[0]), h = height + (v[3] - v[1])
            try call("POST", "/window/rect", ["width": w, "height": h])
            // On a loaded machine the page may not have its new size yet when the call
            // returns: read it again once two frames were painted.
            try settle()
        }
        let v = try execute("return [window.innerWidth, window.innerHeight]") as? [Int] ?? []
        guard v == [width, height] else { throw WebDriverError("the viewport is \(v), not \(width)×\(height)") }
    }

    /// Waits for two frames to be painted (after a resize).
    func settle() throws {
        try executeAsync("const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));")
    }

    /// A PNG of the viewport.
    func screenshot() throws -> Data {
        guard let b64 = try call("GET", "/screenshot") as? String, let d = Data(base64Encoded: b64) else {
            throw WebDriverError("no screenshot")
        }
        return d
    }

    /// A PNG of the whole page at the viewport's width: the window made as tall as the
    /// page for the shot, then put back.
    func fullPageScreenshot(width: Int, height: Int) throws -> Data {
        let full = try execute("return Math.ceil(document.documentElement.scrollHeight)") as? Int ?? height
        try setViewport(width: width, height: max(height, min(full, 4000)))
        defer { try? setViewport(width: width, height: height) }
        try settle()
        return try screenshot()
    }

    /// `eventually`, with the browser tests' usual time-out and interval (a browser is slow).
    /// `what` is read when the deadline passes (it may name what was last seen).
    func poll(_ what: @autoclosure () -> String, timeout: Double = 20, _ condition: () throws -> Bool) throws {
        try eventually(what(), timeout: timeout, interval: 0.05, condition)
    }

    func close() throws {
        guard !closed else { return }
        closed = true
        try driver.call("DELETE", "/session/\(id)")
    }
}
