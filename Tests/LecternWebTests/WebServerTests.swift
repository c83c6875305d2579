import Foundation
import Glibc
import LecternClient
import LecternModel
import LecternProtocol
import LecternRender
@testable import LecternService
import LecternTestSupport
import XCTest

/// The web remote's HTTP server (issue 7), without a browser: the files it serves and
/// nothing else, where they come from, its port and its config key.
final class WebServerTests: XCTestCase {
    func testServesTheAppsFilesAndNothingElse() throws {
        let h = try ServiceHarness.web(browsers: false)
        let base = h.url
        let index = try HTTP.send("GET", base)
        XCTAssertEqual(index.status, 200)
        XCTAssertEqual(index.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertTrue(index.text.contains("<script type=\"module\" src=\"/lectern.js\">"), "index.html loads the entry module")
        XCTAssertFalse(index.text.contains("http://") && index.text.contains("<script src=\"http"), "nothing from the internet")
        XCTAssertEqual(index.headers["cache-control"], "no-cache")
        XCTAssertNotNil(index.headers["etag"])
        XCTAssertTrue(index.headers["content-security-policy"]?.contains("default-src 'none'") == true)
        XCTAssertEqual(index.headers["x-content-type-options"], "nosniff")

        let js = try HTTP.send("GET", base + "lectern.js")
        XCTAssertEqual(js.status, 200)
        XCTAssertEqual(js.headers["content-type"], "text/javascript; charset=utf-8")
        XCTAssertTrue(js.text.contains("import './app/remote.js'"), "the entry module imports the page's, which imports the others")
        XCTAssertTrue(try HTTP.send("GET", base + "core/crypto.js").text.contains("lectern-register-v1"))
        let css = try HTTP.send("GET", base + "lectern.css")
        XCTAssertEqual(css.status, 200)
        XCTAssertEqual(css.headers["content-type"], "text/css; charset=utf-8")
        XCTAssertEqual(try HTTP.send("GET", base + "index.html?x=1").text, index.text)

        // Revalidation: the same ETag gets 304 and no body.
        let again = try HTTP.send("GET", base + "lectern.js", headers: ["If-None-Match": js.headers["etag"] ?? ""])
        XCTAssertEqual(again.status, 304)
        XCTAssertEqual(again.body.count, 0)
        let head = try HTTP.send("HEAD", base + "lectern.css")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["content-length"], String(css.body.count))
        XCTAssertEqual(head.body.count, 0)

        XCTAssertEqual(try HTTP.send("GET", base + "nothing-here.js").status, 404)
        XCTAssertEqual(try HTTP.send("GET", base + "../Package.swift").status, 404)
        XCTAssertEqual(try HTTP.send("GET", base + "Web/index.html").status, 404)
        XCTAssertEqual(try HTTP.send("GET", base + "core/../index.html").status, 404, "no path is resolved: a file is found by its name alone")
        XCTAssertEqual(try HTTP.send("GET", base + "core/").status, 404, "no listing of a folder")
        let post = try HTTP.send("POST", base, body: Data("x".utf8))
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.headers["allow"], "GET, HEAD")
        XCTAssertEqual(try HTTP.send("GET", base + "ws").status, 426, "/ws without an upgrade")
    }

    /// The upload pickers take several files, and their accept list comes from formats.js
    /// (set when the page starts: UploadPickerTests checks it in Chromium against the
    /// server's table), which has every extension of the server's table (UploadFormats,
    /// docs/protocol.md §30.10): PDFs, office documents, photos, clips in any container FFmpeg reads.
    func testTheUploadPickerOffersEveryContentType() throws {
        let h = try ServiceHarness.web(browsers: false)
        let index = try HTTP.send("GET", h.url).text
        for id in ["file-input", "file-present"] {
            XCTAssertNotNil(index.range(of: #"id="\#(id)" type="file" multiple>"#), "\(id) takes several files, its accept list from formats.js")
        }
        let formats = try HTTP.send("GET", h.url + "app/formats.js").text
        for ext in UploadFormats.rows.flatMap(\.extensions) { XCTAssertTrue(formats.contains("'\(ext)'"), ext) }
    }

    /// The files come from the build's bundle here; an installed lecternd reads
    /// /usr/share/lectern/web (what the .deb installs); none at all gives a page that says so.
    func testWhereTheFilesComeFrom() throws {
        let source = Repository.path("Sources/LecternService/Web")
        let fromSource = WebAssets.load(directory: source)
        XCTAssertTrue(fromSource.isComplete)
        // The pages and their style sheets at the root; the modules in core/ and app/. The wall
        // view (/wall) is an entry of its own: wall.html, wall.css, app/wall.js.
        XCTAssertEqual(
            Set(fromSource.files.keys),
            Set(
                (["index.html", "lectern.css", "console.css", "presenter-layout.css", "layout-view.css", "wall.html", "wall.css", "app/wall.js"] + Self.modules
                    + Self.audiencePage).map { "/" + $0 }))
        XCTAssertEqual(fromSource.files["/lectern.js"]?.contentType, "text/javascript; charset=utf-8")
        XCTAssertTrue(WebAssets.candidates().contains(WebAssets.installedDirectory))
        XCTAssertEqual(WebAssets.installedDirectory, "/usr/share/lectern/web")
        let bundled = try XCTUnwrap(WebAssets.bundledDirectory(), "the resource bundle of this build")
        XCTAssertEqual(WebAssets.load(directory: bundled).files["/lectern.js"]?.body, fromSource.files["/lectern.js"]?.body)
        XCTAssertEqual(Set(WebAssets.load(directory: bundled).files.keys), Set(fromSource.files.keys), "the bundle has the folders too")
        XCTAssertFalse(WebAssets.load(directory: "/nonexistent/lectern-web").isComplete)
        XCTAssertEqual(WebAssets.folders, ["core", "app"])
    }

    /// The web client's ES modules: lectern.js (the entry, at the root) and what it imports.
    /// `core/`: the protocol, its framing, the link, hashing, uploads (no DOM, never importing
    /// `app/`; Tests/web runs each under node), and what a tab keeps. `app/`: the pages'
    /// entries and views.
    static let core = [
        "protocol.js", "bytes.js", "wire.js", "sha256.js", "crypto.js", "link.js", "upload.js", "upload-speed.js", "share-wire.js", "console-wire.js",
        "saved-session.js", "remembered.js", "backoff.js", "images-deck.js", "pacing.js",
    ].map { "core/" + $0 }
    static let app = [
        "remote.js", "state.js", "session.js", "dom.js", "notices.js", "views.js", "screen-view.js", "floor-view.js",
        "files-view.js", "clip-view.js", "moderator-view.js", "preview.js", "next-slide.js", "drive.js",
        "console-view.js", "notes-files.js", "moderator-notes.js", "ink-tool.js", "output-alert.js", "sound-control.js", "record-view.js", "screen-code.js",
        "go-live.js", "confirm-live.js", "presenter-layout.js", "alerts.js", "audience-panel.js",
        "prepared-polls.js", "layout-view.js", "end-meeting.js", "share.js", "share-view.js", "share-sound.js", "formats.js",
        "conversion-view.js",
    ].map { "app/" + $0 }
    static let modules = ["lectern.js"] + app + core

    /// The audience's own page (viewer.html, §24) and the modules it imports (beyond the remote's).
    static let audiencePage = ["viewer.html", "viewer.css"] + ["viewer-view.js", "poll-view.js", "viewer-overlay.js", "viewer-wall.js", "viewer-share.js"].map { "app/" + $0 }

    /// A module's import (`./x.js`, `../core/x.js`) as a path from the root ("core/x.js"), or
    /// nil when it isn't a relative URL to a module inside the web folder.
    static func resolve(_ spec: String, from module: String) -> String? {
        guard spec.hasPrefix("./") || spec.hasPrefix("../"), spec.hasSuffix(".js"), !spec.contains("//"), !spec.contains(":") else { return nil }
        var parts = module.split(separator: "/").dropLast().map(String.init)
        for piece in spec.split(separator: "/") {
            if piece == "." { continue }
            if piece == ".." {
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            } else {
                parts.append(String(piece))
            }
        }
        return parts.joined(separator: "/")
    }

    /// Every module is served as JavaScript, imports only modules of the web folder (by
    /// relative URL: nothing from the internet, no bare names a bundler would resolve), and
    /// is reached from the entry module; nothing in `core/` imports from `app/`.
    func testEveryModuleIsServedAndReachedFromTheEntry() throws {
        let h = try ServiceHarness.web(browsers: false)
        let importPattern = try NSRegularExpression(
            pattern: #"^\s*(?:(?:import|export)\b[^'";]*?\bfrom\s+|import\s+)['"]([^'"]+)['"]"#,
            options: [.anchorsMatchLines])
        var reached: Set<String> = [], queue = ["lectern.js"]
        while let name = queue.popLast() {
            guard reached.insert(name).inserted else { continue }
            let r = try HTTP.send("GET", h.url + name)
            XCTAssertEqual(r.status, 200, name)
            XCTAssertEqual(r.headers["content-type"], "text/javascript; charset=utf-8", name)
            let text = r.text
            for m in importPattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let spec = String(text[Range(m.range(at: 1), in: text)!])
                guard let target = Self.resolve(spec, from: name) else {
                    XCTFail("\(name) imports \(spec): only relative URLs of modules in the web folder")
                    continue
                }
                XCTAssertFalse(name.hasPrefix("core/") && !target.hasPrefix("core/"), "\(name) (core) imports \(target): core/ imports only core/")
                queue.append(target)
            }
        }
        XCTAssertEqual(reached, Set(Self.modules), "the modules the entry reaches")
    }

    func testTheConfigTurnsItOff() throws {
        let h = try ServiceHarness.web(browsers: false) { $0.httpPort = nil }
        XCTAssertNil(h.service.httpPort)
        // The protocol still works over TCP.
        let c = try h.connect()
        try c.register(name: "cli", role: .presenter, passcode: ServiceHarness.presenterPass)
    }

    /// A taken port doesn't stop the service (the projector and the protocol work on); the
    /// web remote listens once the port is free.
    func testATakenPortIsTriedAgainUntilItIsFree() throws {
        let blocker = try Listener()
        let h = try ServiceHarness.web(browsers: false) { $0.httpPort = blocker.port }
        XCTAssertNil(h.service.httpPort, "not listening while the port is taken")
        let c = try h.connect()
        try c.register(name: "cli", role: .presenter, passcode: ServiceHarness.presenterPass)
        blocker.close()
        try eventually("the web remote on its port", timeout: 3 * Double(Service.webRemoteRetrySeconds)) { h.service.httpPort == blocker.port }
        XCTAssertEqual(try HTTP.send("GET", h.url).status, 200)
    }

    func testTheHttpPortKey() throws {
        let pass = "passcode = \"tulip-harbour\"\nmoderator_passcode = \"granite-lantern\"\n"
        XCTAssertEqual(ConfigFile.parse(pass).config.httpPort, 8080, "the default")
        XCTAssertEqual(ConfigFile.parse(pass + "http_port = 8123\n").config.httpPort, 8123)
        let off = ConfigFile.parse(pass + "http_port = 0\n")
        XCTAssertEqual(off.problems, [])
        XCTAssertNil(off.config.httpPort, "0: no web remote")
        XCTAssertEqual(
            ConfigFile.parse(pass + "port = 9000\nhttp_port = 9000\n").problems.map(\.description),
            ["line 4: 'http_port' is the same as 'port' (9000): the web remote needs a port of its own (0: no web remote)"])
        XCTAssertEqual(
            ConfigFile.parse(pass + "http_port = 80\n").warnings.map(\.description),
            ["line 3: 'http_port' 80 is below 1024: binding it needs CAP_NET_BIND_SERVICE, which the shipped unit does not grant"])
        XCTAssertEqual(
            ConfigFile.parse(pass + "http_port = 70000\n").problems.map(\.description),
            ["line 3: 'http_port' must be from 0 to 65535, not 70000"])
        XCTAssertEqual(
            ConfigFile.parse(pass + "http_prot = 8080\n").problems.map(\.description),
            ["line 3: unknown key 'http_prot' (did you mean 'http_port'?)"])
    }
}

/// A listening TCP socket on a free port of 127.0.0.1 that accepts nobody: a port taken.
final class Listener {
    private var fd: Int32
    let port: Int

    init() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = self.fd
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { throw WebDriverError("listen: \(String(cString: strerror(errno)))") }
        port = Int(UInt16(bigEndian: addr.sin_port))
    }

    func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }

    deinit { close() }
}
