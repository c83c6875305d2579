import Foundation

/// Where a viewer fetches the slide on the wall over HTTP (docs/protocol.md §24.2):
/// `/page/<content id hex>/<page>/<width>?k=<key>`. The widths are quantised (so the page
/// is rendered once per page and size, and every phone of a kind asks for the same
/// image); the key is the device's own, derived from the resume token it got at register,
/// so only joined devices can fetch and nothing new travels in the state.
public enum PageImageAddress {
    /// The widths a page image comes in (pixels); a device asks for the smallest that is at
    /// least its slide's width × devicePixelRatio (the largest if none is).
    public static let widths = [320, 480, 640, 960, 1280, 1920]
    public static let prefix = "/page/"

    /// The quantised width for a device that shows the slide `wanted` pixels wide.
    public static func width(fitting wanted: Int) -> Int { widths.first { $0 >= wanted } ?? widths[widths.count - 1] }

    /// The device's key: the first 32 hex digits of SHA-256("lectern-page-image-v1" ‖ token).
    public static func key(for token: ResumeToken) -> String {
        String(ContentHasher.id(of: Array("lectern-page-image-v1".utf8) + token.bytes).hex.prefix(32))
    }

    /// The live page's address without width and key, as the state carries it (`audience.pageImage`).
    public static func path(content: String, page: Int) -> String { "\(prefix)\(content)/\(page)" }

    /// The full address a device fetches.
    public static func url(content: String, page: Int, width: Int, key: String) -> String {
        "\(path(content: content, page: page))/\(width)?k=\(key)"
    }

    /// A request's parts, or nil when the address is not one of these.
    public struct Request: Equatable, Sendable {
        public let content: String
        public let page: Int
        public let width: Int
        public let key: String
        public init(content: String, page: Int, width: Int, key: String) {
            self.content = content
            self.page = page
            self.width = width
            self.key = key
        }
    }

    /// Parses `/page/<64 hex>/<page>/<width>?k=<32 hex>`; nil for anything else.
    public static func parse(_ uri: String) -> Request? {
        guard uri.hasPrefix(prefix), uri.utf8.count < 200 else { return nil }
        let (path, query) = uri.firstIndex(of: "?").map { (uri[..<$0], uri[uri.index(after: $0)...]) } ?? (uri[...], "")
        let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count == 64, parts[0].allSatisfy(\.isHexDigit),
            let page = Int(parts[1]), page >= 1, let width = Int(parts[2]), widths.contains(width)
        else { return nil }
        var key = ""
        for item in query.split(separator: "&") where item.hasPrefix("k=") { key = String(item.dropFirst(2)) }
        return Request(content: parts[0].lowercased(), page: page, width: width, key: key)
    }
}
