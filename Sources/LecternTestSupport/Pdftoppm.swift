import LecternModel

extension Fixtures {
    /// pdftoppm's render of one page at exactly `width`×`height` pixels.
    public static func pdftoppm(_ pdf: String, page: Int, width: Int, height: Int) throws -> Frame {
        func render(_ w: Int, _ h: Int) throws -> Frame {
            let r = try run(
                "pdftoppm",
                [
                    "-f", "\(page)", "-l", "\(page)", "-scale-to-x", "\(w)",
                    "-scale-to-y", "\(h)", "-singlefile", pdf,
                ])
            guard r.status == 0 else { throw ToolError(description: "pdftoppm failed: \(r.err)") }
            return try PPM.decode(r.out)
        }
        // pdftoppm's -scale-to-x/-y name the unrotated page's sides: swap for /Rotate 90 and 270.
        let f = try render(width, height)
        return f.width == width ? f : try render(height, width)
    }
}
