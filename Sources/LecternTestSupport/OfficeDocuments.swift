import Foundation

/// Office documents made in the test (issue 29): decks by python-pptx and odfpy, and the
/// hostile ones written part by part (a zip of XML), each by the Python script below
/// (`python3` from the PATH, with board/python-packages.txt installed by board/install-deps).
public enum OfficeDocuments {
    /// A `.pptx` of `slides` slides, each with a title ("Slide N title"), a picture (a
    /// colour gradient, different on each slide) and speaker notes ("Speaker notes for
    /// slide N").
    /// `title`: the titles' prefix ("Slide"), so that decks made for each round differ.
    /// `hidden`: the slides (1-based) marked hidden (left out of a PDF export).
    public static func pptx(_ path: String, slides: Int, notes: Bool = true, pictureSize: Int = 400, title: String = "Slide", hidden: [Int] = []) throws {
        try make("pptx", path, String(slides), notes ? "notes" : "-", String(pictureSize), title, hidden.map(String.init).joined(separator: ","))
    }

    /// A Keynote deck (`.key`) of `slides` slides, each with a text box "Keynote slide N
    /// title": the zip Keynote 2–5 ('09) saves, its slides in `index.apxl` (the XML that
    /// LibreOffice's Keynote import, libetonyek, reads). Made here because no Mac is at hand;
    /// the layout is libetonyek's own test data's (src/test/data/keynote4.apxl) with slides.
    public static func keynote(_ path: String, slides: Int) throws { try make("keynote", path, String(slides)) }

    /// An `.odp` of `slides` slides with a title each (odfpy).
    public static func odp(_ path: String, slides: Int) throws { try make("odp", path, String(slides)) }

    /// A `.docx` of `paragraphs` paragraphs ("Paragraph N of the document"), headed "Quarterly report".
    public static func docx(_ path: String, paragraphs: Int) throws { try make("docx", path, String(paragraphs)) }

    /// An `.odt` with a section linked to each of `files` (`file://` URLs: what LibreOffice
    /// pulls in when the document's links are updated).
    public static func linkedSections(_ path: String, files: [String]) throws { try make("linked", path, files.joined(separator: "\n")) }

    /// A `.docx` whose picture is an external relationship to `url` (`http://…` or `file://…`).
    public static func externalImageDocx(_ path: String, url: String) throws { try make("extdocx", path, url) }

    /// An `.odt` whose picture is linked to `url`.
    public static func externalImageOdt(_ path: String, url: String) throws { try make("extodt", path, url) }

    /// An `.odt` with an embedded Python macro that writes `marker` (and changes the text to
    /// "MACRO RAN HERE"), bound to every document event a conversion could fire (load, load
    /// finished, layout finished, page count change, copy-to and its end, print).
    public static func macroOdt(_ path: String, marker: String) throws { try make("macro", path, marker) }

    /// A `.pptx` (its parts as python-pptx writes them) whose slide XML is padded with
    /// `unpackedMB` MB of spaces: it unpacks to that much from a zip of about a thousandth.
    public static func zipBombPptx(_ path: String, unpackedMB: Int) throws { try make("bomb", path, String(unpackedMB)) }

    /// An `.odp` of `slides` empty slides (written as XML, quickly).
    public static func manySlidesOdp(_ path: String, slides: Int) throws { try make("many", path, String(slides)) }

    /// An `.ods` of `rows` rows ("Row N", N).
    public static func ods(_ path: String, rows: Int) throws { try make("ods", path, String(rows)) }

    /// `input` converted by LibreOffice (outside any sandbox) to `format` ("ppt", "doc",
    /// "xls", "rtf", "xlsx", …) in `outDir`: a test file of that format; returns its path.
    public static func saved(_ input: String, as format: String, outDir: String) throws -> String {
        let profile = Fixtures.tempDir("lo-save")
        let r = try Fixtures.run("soffice", ["-env:UserInstallation=file://" + profile, "--headless", "--norestore", "--convert-to", format, "--outdir", outDir, input])
        let out = outDir + "/" + ((input as NSString).lastPathComponent as NSString).deletingPathExtension + "." + format
        guard r.status == 0, FileManager.default.fileExists(atPath: out) else {
            throw Fixtures.ToolError(description: "soffice --convert-to \(format) of \(input) failed: \(r.err)")
        }
        return out
    }

    /// An `.ods` with a number in each of `rows` rows: LibreOffice lays out and exports
    /// tens of thousands of pages, for minutes.
    public static func endlessOds(_ path: String, rows: Int = 1_000_000) throws { try make("endless", path, String(rows)) }

    private static func make(_ kind: String, _ path: String, _ args: String...) throws {
        let r = try Fixtures.run("python3", ["-c", script, kind, path] + args)
        guard r.status == 0, FileManager.default.fileExists(atPath: path) else {
            throw Fixtures.ToolError(description: "making a \(kind) document failed (python3 with board/python-packages.txt, which board/install-deps installs): \(r.err)")
        }
    }

    static let script = #"""
        import sys, zipfile
        kind, out, args = sys.argv[1], sys.argv[2], sys.argv[3:]
        NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
              'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
              'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:script="urn:oasis:names:tc:opendocument:xmlns:script:1.0" '
              'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
              'xmlns:dom="http://www.w3.org/2001/xml-events" xmlns:ooo="http://openoffice.org/2004/office"')

        def odf(path, mime, body, head="", extra=(), entries=()):
            z = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
            z.writestr(zipfile.ZipInfo("mimetype"), mime)
            files = "".join('<manifest:file-entry manifest:full-path="%s" manifest:media-type="%s"/>' % e for e in entries)
            z.writestr("META-INF/manifest.xml", '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="%s"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>%s</manifest:manifest>' % (mime, files))
            z.writestr("content.xml", '<?xml version="1.0" encoding="UTF-8"?><office:document-content %s office:version="1.2">%s<office:body>%s</office:body></office:document-content>' % (NS, head, body))
            for name, data in extra:
                z.writestr(name, data)
            z.close()

        TEXT = "application/vnd.oasis.opendocument.text"

        if kind == "pptx" or kind == "bomb":
            from pptx import Presentation
            from pptx.util import Inches
            from PIL import Image
            import io
            n = int(args[0]) if kind == "pptx" else 1
            size = int(args[2]) if kind == "pptx" else 64
            prs = Presentation()
            prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
            ramp = Image.linear_gradient("L")
            for i in range(n):
                # A photo-like picture (a JPEG, as photos are), different on each slide:
                # two gradients and noise.
                w, h = size, size * 3 // 4
                img = Image.merge("RGB", (ramp.rotate(90 + i * 37 % 360).resize((w, h)), ramp.resize((w, h)), Image.effect_noise((w, h), 40 + i % 30)))
                data = io.BytesIO()
                img.save(data, "JPEG", quality=85)
                data.seek(0)
                s = prs.slides.add_slide(prs.slide_layouts[5])
                s.shapes.title.text = "%s %d title" % (args[3] if kind == "pptx" else "Slide", i + 1)
                s.shapes.add_picture(data, Inches(3), Inches(2), width=Inches(6))
                if kind == "bomb" or args[1] == "notes":
                    s.notes_slide.notes_text_frame.text = "Speaker notes for slide %d" % (i + 1)
                if kind == "pptx" and len(args) > 4 and str(i + 1) in args[4].split(","):
                    s._element.set("show", "0")
            prs.save(out)
            if kind == "bomb":
                src = zipfile.ZipFile(out)
                parts = [(i, src.read(i.filename)) for i in src.infolist()]
                src.close()
                z = zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED)
                for info, data in parts:
                    if info.filename == "ppt/slides/slide1.xml":
                        # Spaces between the XML declaration and the root: valid XML, unpacking to args[0] MB.
                        head, rest = data.split(b"?>", 1)
                        with z.open("ppt/slides/slide1.xml", "w", force_zip64=True) as w:
                            w.write(head + b"?>")
                            pad = b" " * (1 << 20)
                            for _ in range(int(args[0])):
                                w.write(pad)
                            w.write(rest)
                    else:
                        z.writestr(info.filename, data)
                z.close()
        elif kind == "odp" or kind == "many":
            n = int(args[0])
            page = ('<draw:page draw:name="s%d" draw:master-page-name="Default"><draw:frame svg:width="24cm" svg:height="3cm" svg:x="2cm" svg:y="2cm">'
                    '<draw:text-box><text:p>Slide %d title</text:p></draw:text-box></draw:frame></draw:page>')
            pages = "".join(page % (i + 1, i + 1) for i in range(n)) if kind == "odp" else "".join('<draw:page draw:name="s%d"/>' % (i + 1) for i in range(n))
            styles = ('<?xml version="1.0" encoding="UTF-8"?><office:document-styles %s xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
                      'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" office:version="1.2"><office:automatic-styles>'
                      '<style:page-layout style:name="PL"><style:page-layout-properties fo:page-width="28cm" fo:page-height="15.75cm" style:print-orientation="landscape"/></style:page-layout>'
                      '</office:automatic-styles><office:master-styles><style:master-page style:name="Default" style:page-layout-name="PL"/></office:master-styles></office:document-styles>') % NS
            odf(out, "application/vnd.oasis.opendocument.presentation", "<office:presentation>%s</office:presentation>" % pages,
                extra=[("styles.xml", styles)], entries=[("styles.xml", "text/xml")])
        elif kind == "docx" or kind == "extdocx":
            body = '<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:rPr><w:sz w:val="56"/></w:rPr><w:t>Quarterly report</w:t></w:r></w:p>'
            rels = ""
            if kind == "docx":
                body += "".join("<w:p><w:r><w:t>Paragraph %d of the document</w:t></w:r></w:p>" % (i + 1) for i in range(int(args[0])))
            else:
                rels = '<Relationship Id="rIdImg" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="%s" TargetMode="External"/>' % args[0]
                body += ('<w:p><w:r><w:drawing><wp:inline><wp:extent cx="2743200" cy="2743200"/><wp:docPr id="1" name="P"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">'
                         '<pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="P"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:link="rIdImg"/></pic:blipFill>'
                         '<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="2743200" cy="2743200"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>')
            z = zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED)
            z.writestr("[Content_Types].xml", '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
            z.writestr("_rels/.rels", '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>')
            z.writestr("word/_rels/document.xml.rels", '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">%s</Relationships>' % rels)
            z.writestr("word/document.xml", ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
                'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
                'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body>%s</w:body></w:document>') % body)
            z.close()
        elif kind == "linked":
            sections = "".join('<text:section text:name="L%d"><text:section-source xlink:href="%s" xlink:type="simple" text:filter-name="Text"/><text:p>link %d not updated</text:p></text:section>' % (i, f, i)
                               for i, f in enumerate(args[0].split("\n")))
            odf(out, TEXT, "<office:text><text:p>Linked sections below</text:p>%s</office:text>" % sections)
        elif kind == "extodt":
            odf(out, TEXT, '<office:text><text:p>Linked picture below<draw:frame svg:width="5cm" svg:height="5cm"><draw:image xlink:href="%s" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p></office:text>' % args[0])
        elif kind == "macro":
            events = ["dom:load", "office:load-finished", "office:layout-finished", "office:page-count-change", "office:copy-to", "office:copy-to-done", "office:print", "office:view-created"]
            listeners = "".join('<script:event-listener script:language="ooo:script" script:event-name="%s" xlink:href="vnd.sun.star.script:macro.py$main?language=Python&amp;location=document" xlink:type="simple"/>' % e for e in events)
            macro = ('def main(*args):\n    open(%r, "w").write("macro ran")\n    try:\n        args[0].Source.getText().setString("MACRO RAN HERE")\n    except Exception:\n        pass\n'
                     'g_exportedScripts = (main,)\n') % args[0]
            odf(out, TEXT, "<office:text><text:p>Original text</text:p></office:text>", head="<office:scripts><office:event-listeners>%s</office:event-listeners></office:scripts>" % listeners,
                extra=[("Scripts/python/macro.py", macro)], entries=[("Scripts/python/macro.py", ""), ("Scripts/python/", "application/binary"), ("Scripts/", "application/binary")])
        elif kind == "ods":
            rows = "".join('<table:table-row><table:table-cell office:value-type="string"><text:p>Row %d</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="%d"/></table:table-row>' % (i + 1, i + 1) for i in range(int(args[0])))
            odf(out, "application/vnd.oasis.opendocument.spreadsheet", '<office:spreadsheet><table:table table:name="S">%s</table:table></office:spreadsheet>' % rows)
        elif kind == "endless":
            rows = '<table:table-row table:number-rows-repeated="%d"><table:table-cell office:value-type="float" office:value="1" table:number-columns-repeated="8"/></table:table-row>' % int(args[0])
            odf(out, "application/vnd.oasis.opendocument.spreadsheet", '<office:spreadsheet><table:table table:name="S">%s</table:table></office:spreadsheet>' % rows)
        elif kind == "keynote":
            shape = ('<key:slide sfa:ID="BGSlide-%d"><key:page><sf:layers><sf:layer><sf:drawables>'
                     '<sf:shape sfa:ID="SFDShapeInfo-%d"><sf:geometry sfa:ID="SFDAffineGeometry-%d"><sf:naturalSize sfa:w="800" sfa:h="120"/><sf:position sfa:x="100" sfa:y="100"/></sf:geometry>'
                     '<sf:path><sf:bezier-path><sf:bezier sfa:path="M 0 0 L 800 0 L 800 120 L 0 120 Z"/></sf:bezier-path></sf:path>'
                     '<sf:text><sf:text-storage sf:kind="textbox"><sf:text-body><sf:p>Keynote slide %d title</sf:p></sf:text-body></sf:text-storage></sf:text></sf:shape>'
                     '</sf:drawables></sf:layer></sf:layers></key:page></key:slide>')
            slides = "".join(shape % (i + 1, i + 1, i + 1, i + 1) for i in range(int(args[0])))
            z = zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED)
            z.writestr("index.apxl", '<?xml version="1.0"?><key:presentation xmlns:sfa="http://developer.apple.com/namespaces/sfa" '
                       'xmlns:sf="http://developer.apple.com/namespaces/sf" xmlns:key="http://developer.apple.com/namespaces/keynote2" '
                       'key:version="72007061400" sfa:ID="BGShow-0" key:play-mode="interactive" key:mode="once">'
                       '<key:size sfa:w="1024" sfa:h="768"/><key:slide-list>%s</key:slide-list></key:presentation>' % slides)
            z.close()
        else:
            sys.exit("unknown kind " + kind)
        """#
}
