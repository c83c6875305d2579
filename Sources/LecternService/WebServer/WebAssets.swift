import Crypto
import Foundation
import Logging

/// The web app's files, read once at start: served from memory with their type and an
/// ETag. Looked for in `$LECTERN_WEB_DIR` (development), the build's resource bundle
/// (`Bundle.module`, `swift build`/`make run`), and `/usr/share/lectern/web` (the .deb).
struct WebAssets: Sendable {
    struct File: Sendable {
        let body: [UInt8]
        let contentType: String
        let etag: String
    }

    static let installedDirectory = "/usr/share/lectern/web"
    /// The app's entry files (lectern.js imports the other modules, in `core/` and `app/`);
    /// all three must be in one directory.
    static let required = ["index.html", "lectern.css", "lectern.js"]
    static let types = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon", "txt": "text/plain; charset=utf-8",
        "webmanifest": "application/manifest+json",
    ]

    /// URL path ("/lectern.js") → file.
    let files: [String: File]
    /// Where they came from (for the log), or why there are none.
    let source: String
    var isComplete: Bool { Self.required.allSatisfy { files["/" + $0] != nil } }

    static func candidates() -> [String] {
        var dirs: [String] = []
        if let env = ProcessInfo.processInfo.environment["LECTERN_WEB_DIR"], !env.isEmpty { dirs.append(env) }
        if let bundled = bundledDirectory() { dirs.append(bundled) }
        dirs.append(installedDirectory)
        return dirs
    }

    /// The `Web` folder of the resource bundle, when the bundle is where SwiftPM's accessor
    /// looks first (next to the executable). `Bundle.module` stops the process when it finds
    /// no bundle at all, which is the case for an installed binary: so look before touching it.
    static func bundledDirectory() -> String? {
        #if os(Linux)
            let bundleName = "Lectern_LecternService.resources"
        #else
            let bundleName = "Lectern_LecternService.bundle"
        #endif
        let next = Bundle.main.bundleURL.appendingPathComponent(bundleName).path
        guard FileManager.default.fileExists(atPath: next) else { return nil }
        return Bundle.module.url(forResource: "Web", withExtension: nil)?.path
    }

    static func load(logger: Logger) -> WebAssets {
        let tried = candidates()
        for dir in tried {
            let assets = load(directory: dir)
            if assets.isComplete { return assets }
        }
        logger.error(
            "web remote: its files (\(required.joined(separator: ", "))) are in none of \(tried.joined(separator: ", ")): the page will say so (reinstall the lectern package)")
        return WebAssets(files: [:], source: "nowhere (looked in \(tried.joined(separator: ", ")))")
    }

    /// The folders below the root whose files are served too (`/core/link.js`): the web
    /// client's modules with no DOM (`core/`) and its views and page entries (`app/`). Only
    /// these, one level down: nothing else of the directory is reachable.
    static let folders = ["core", "app"]

    static func load(directory: String) -> WebAssets {
        var files: [String: File] = [:]
        for folder in [""] + folders.map({ $0 + "/" }) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/" + folder)) ?? []
            for name in names {
                let ext = (name as NSString).pathExtension.lowercased()
                guard let type = types[ext], !name.hasPrefix("."),
                    let data = FileManager.default.contents(atPath: directory + "/" + folder + name)
                else { continue }
                let digest = SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
                files["/" + folder + name] = File(body: [UInt8](data), contentType: type, etag: "\"\(digest)\"")
            }
        }
        return WebAssets(files: files, source: directory)
    }
}
