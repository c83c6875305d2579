import Foundation
import LecternClient
import LecternModel
import LecternProtocol

/// Several files given to `upload` or `present` (docs/protocol.md §30.9): each is uploaded
/// (and converted, the progress said); two or more photos or images among them become one
/// deck in the order given (images-deck), the others stay decks or clips of their own.
enum UploadFiles {
    /// The content ids to print, in the order given: the images' deck where the first image was.
    static func upload(_ files: [String], _ c: LecternConnection, showProgress: Bool) throws -> [ContentID] {
        var out: [ContentID] = []
        var images: [(name: String, id: ContentID)] = []
        var imagesAt: Int?
        for file in files {
            let stored = try UploadCommand.upload(file, c, showProgress: showProgress)
            if isImage(file) {
                images.append(((file as NSString).lastPathComponent, stored.content))
                if imagesAt == nil { imagesAt = out.count }
            } else {
                out.append(stored.content)
            }
        }
        if images.count == 1, let at = imagesAt { out.insert(images[0].id, at: at) }
        if images.count > 1, let at = imagesAt {
            let name = ImageSet.deckName(images.map(\.name))
            var said = ""
            let deck = try c.imagesDeck(images.map(\.id), name: name) { p in
                let line = ConversionLine.text(p, name: name)
                guard line != said else { return }
                said = line
                FileHandle.standardError.write(Data((isatty(STDERR_FILENO) == 1 ? "\r\u{1B}[K" + line : line + "\n").utf8))
            }
            if !said.isEmpty && isatty(STDERR_FILENO) == 1 { FileHandle.standardError.write(Data("\n".utf8)) }
            out.insert(deck.content, at: at)
        }
        return out
    }

    /// Whether `file` is a photo or image by its first bytes (as the appliance decides).
    static func isImage(_ file: String) -> Bool {
        guard let h = FileHandle(forReadingAtPath: file) else { return false }
        defer { try? h.close() }
        return ImageFormat(head: [UInt8]((try? h.read(upToCount: 64)) ?? Data())) != nil
    }
}
