import LecternConvert
import LecternModel
import LecternPhotos
import XCTest

/// The one table of what the appliance shows (UploadFormats, §30.10) against the converters'
/// own tables: every office format LibreOffice takes has its extension in the picker, every
/// image format the image row takes has its row, and the refusal names them.
final class UploadFormatsTests: XCTestCase {
    func testTheOfficeRowIsTheOfficeConvertersFormats() {
        XCTAssertEqual(UploadFormats.officeExtensions, OfficeFormats.all.map { "." + $0.id })
    }

    func testTheImageRowsAreTheImageConvertersFormats() {
        let rows = UploadFormats.rows.filter { $0.kind == "image" }
        XCTAssertEqual(rows.map(\.what), ImageFormat.allCases.map { ImageConverter.format($0).what })
        XCTAssertEqual(rows.flatMap(\.extensions), ImageFormat.allCases.flatMap(\.row.extensions))
    }

    func testTheAcceptListHasEveryExtensionThenEveryMIMEType() {
        let parts = UploadFormats.accept.split(separator: ",").map(String.init)
        let extensions = parts.prefix { $0.hasPrefix(".") }
        XCTAssertEqual(Array(extensions), UploadFormats.rows.flatMap(\.extensions))
        XCTAssertEqual(Array(parts.dropFirst(extensions.count)), UploadFormats.rows.flatMap(\.mimeTypes))
    }

    func testTheRefusalSaysWhatIsShownAndWhatToDo() {
        XCTAssertEqual(
            UploadFormats.refusal,
            "This kind of file can't be shown. The appliance shows PDF slides, PowerPoint, Keynote, Word, Excel and OpenDocument files, photos and images (JPEG, PNG, WebP, GIF, HEIC/HEIF) and video clips (H.264; MP4, MOV, Matroska, MPEG-TS). Export your slides as PDF and try again."
        )
    }
}
