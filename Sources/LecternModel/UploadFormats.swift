/// Every kind of file the appliance shows, as people and file pickers know them (docs/protocol.md
/// §30.10): the one table the web remote's picker `accept` list is derived from (its copy,
/// Web/app/formats.js, is checked against it), and the sentence that refuses anything else. What a
/// file is, is decided by its content, never by these extensions: they only let a phone's
/// picker offer the file (a picker given only MIME types greys out files it can't type).
public enum UploadFormats {
    public struct Row: Equatable, Sendable {
        /// "pdf", "clip", "office", "image" or "notes".
        public let kind: String
        /// For people: "PDF slides".
        public let what: String
        public let extensions: [String]
        public let mimeTypes: [String]
        public init(_ kind: String, _ what: String, _ extensions: [String], _ mimeTypes: [String]) {
            self.kind = kind
            self.what = what
            self.extensions = extensions
            self.mimeTypes = mimeTypes
        }
    }

    /// Office documents LibreOffice converts: an extension per format of `OfficeFormats`
    /// (LecternConvert; a test keeps the two the same).
    public static let officeExtensions = [".pptx", ".ppt", ".odp", ".key", ".docx", ".doc", ".odt", ".rtf", ".xlsx", ".xls", ".ods"]

    public static let rows: [Row] =
        [
            Row("pdf", "PDF slides", [".pdf"], ["application/pdf"]),
            Row(
                "office", "PowerPoint, Keynote, Word, Excel and OpenDocument files", officeExtensions,
                [
                    "application/vnd.openxmlformats-officedocument.presentationml.presentation", "application/vnd.ms-powerpoint",
                    "application/vnd.oasis.opendocument.presentation", "application/vnd.apple.keynote",
                    "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/msword",
                    "application/vnd.oasis.opendocument.text", "application/rtf", "text/rtf",
                    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/vnd.ms-excel",
                    "application/vnd.oasis.opendocument.spreadsheet",
                ]),
        ] + ImageFormat.allCases.map { Row("image", $0.row.what, $0.row.extensions, $0.row.mimeTypes) } + [
            Row("clip", "video clips", [".mp4", ".m4v", ".mov", ".mkv", ".webm", ".ts", ".m2ts", ".mts", ".h264", ".264", ".avi"], ["video/*"]),
            Row("notes", "speaker notes (pdfpc)", [".pdfpc"], []),
        ]

    /// The picker's `accept` attribute: every extension, then every MIME type.
    public static var accept: String {
        (rows.flatMap(\.extensions) + rows.flatMap(\.mimeTypes)).joined(separator: ",")
    }

    /// The refusal of a file none of the decoders and converters takes: what the appliance
    /// shows, and what to do.
    public static let refusal =
        "This kind of file can't be shown. The appliance shows PDF slides, PowerPoint, Keynote, Word, Excel and OpenDocument files, "
        + "photos and images (\(ImageFormat.allCases.map(\.row.name).joined(separator: ", "))) and video clips (H.264; MP4, MOV, Matroska, MPEG-TS). "
        + "Export your slides as PDF and try again."
}
