import Foundation
import LecternCore
import LecternProtocol

/// What must survive a power cut or a `kill -9`: what is on screen (content, page, blank)
/// and who holds the floor (so they can resume it). Kept in `<data_dir>/state.json`,
/// written atomically (temp file, fsync, rename) after every change, off the event loop.
struct PresentationState: Codable, Equatable {
    struct Holder: Codable, Equatable {
        var id: UInt8
        var name: String
        var role: String
        var resumeToken: String
    }

    var content: String?
    var page: Int
    var blank: String
    var holder: Holder?

    static func path(dataDir: String) -> String { dataDir + "/state.json" }

    static func load(dataDir: String) -> PresentationState? {
        guard let data = FileManager.default.contents(atPath: path(dataDir: dataDir)) else { return nil }
        return try? JSONDecoder().decode(PresentationState.self, from: data)
    }

    init(screen: ScreenModel, meeting: Meeting) {
        content = screen.content?.id.hex
        page = screen.page
        blank = screen.blank.rawValue
        if let id = meeting.holder, let d = meeting.devices[id] {
            holder = Holder(id: id, name: d.name, role: d.role == .moderator ? "moderator" : "presenter",
                            resumeToken: d.resumeToken.description)
        }
    }

    /// The screen model this state describes, if its content is still in the store.
    func screen(store: ContentStore) -> ScreenModel? {
        let blankValue = ScreenState.Blank(rawValue: blank) ?? .none
        guard let hex = content else { return blankValue == .none ? nil : ScreenModel(blank: blankValue) }
        guard let item = store.item(hex), item.kind == .pdf, let id = ContentID(hex: hex),
              page >= 1, page <= item.pages else { return nil }
        return ScreenModel(content: ContentSnapshot(id: id, name: item.name, kind: .pdf), page: page,
                           pageCount: item.pages, blank: blankValue)
    }

    var holderToken: ResumeToken? {
        guard let h = holder, h.resumeToken.count == 32 else { return nil }
        var bytes: [UInt8] = []
        var i = h.resumeToken.startIndex
        while i < h.resumeToken.endIndex {
            let j = h.resumeToken.index(i, offsetBy: 2)
            guard let b = UInt8(h.resumeToken[i..<j], radix: 16) else { return nil }
            bytes.append(b); i = j
        }
        return ResumeToken(bytes: bytes)
    }
}

/// Writes presentation states in order on its own queue.
final class StateWriter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "lectern.state-writer")
    private let path: String
    private var last: PresentationState?

    init(dataDir: String) { path = PresentationState.path(dataDir: dataDir) }

    func save(_ s: PresentationState) {
        queue.async { [self] in
            guard s != last, let data = try? JSONEncoder().encode(s) else { return }
            do { try ContentStore.writeAtomically(data, to: path); last = s } catch {}
        }
    }

    /// Waits until every save asked for so far is on disk.
    func flush() { queue.sync {} }
}
