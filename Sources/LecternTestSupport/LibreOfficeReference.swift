import Foundation

/// LibreOffice run as people run it, outside any sandbox: the reference the office tests
/// and benches compare the appliance with (issue 29).
public enum LibreOfficeReference {
    /// `soffice --headless --convert-to pdf` of `input` into `outDir`, with a fresh profile
    /// of its own (a cold start, as a person's first run); returns the PDF's path.
    /// `picturesAsTheyAre`: with the one export option lecternd sets (docs/protocol.md
    /// §30.7), `ReduceImageResolution` off, given as LibreOffice's JSON filter options
    /// with the export filter of the document's kind (by its name's extension).
    @discardableResult
    public static func convert(_ input: String, outDir: String, picturesAsTheyAre: Bool = false) throws -> String {
        let profile = Fixtures.tempDir("lo-profile")
        var target = "pdf"
        if picturesAsTheyAre {
            let ext = (input as NSString).pathExtension.lowercased()
            let filter =
                ["pptx", "ppt", "odp", "key", "ppsx"].contains(ext) ? "impress_pdf_Export" : ["xlsx", "xls", "ods"].contains(ext) ? "calc_pdf_Export" : "writer_pdf_Export"
            target = "pdf:\(filter):{\"ReduceImageResolution\":{\"type\":\"boolean\",\"value\":\"false\"}}"
        }
        let r = try Fixtures.run(
            "soffice", ["-env:UserInstallation=file://" + profile, "--headless", "--norestore", "--convert-to", target, "--outdir", outDir, input])
        let pdf = outDir + "/" + ((input as NSString).lastPathComponent as NSString).deletingPathExtension + ".pdf"
        guard r.status == 0, FileManager.default.fileExists(atPath: pdf) else {
            throw Fixtures.ToolError(description: "soffice --convert-to pdf of \(input) failed (\(r.status)): \(r.err)")
        }
        return pdf
    }

    /// What the document does when LibreOffice trusts it: loaded over UNO outside any
    /// sandbox, macros allowed, its links updated (`updateLinks`), its embedded Python
    /// macro `macro.py$main` invoked (`invokeMacro`), then exported to `output`. Shows that a
    /// hostile test document really reaches for the file, the address or the macro it names.
    public static func trusting(_ input: String, output: String, updateLinks: Bool = false, invokeMacro: Bool = false) throws {
        let profile = Fixtures.tempDir("lo-trusting")
        let r = try Fixtures.run(
            "/usr/bin/python3", ["-c", script, profile, input, output, updateLinks ? "links" : "-", invokeMacro ? "macro" : "-"])
        guard r.status == 0, FileManager.default.fileExists(atPath: output) else {
            throw Fixtures.ToolError(description: "LibreOffice (trusting) on \(input) failed (\(r.status)): \(r.err)")
        }
    }

    static let script = #"""
        import os, sys, subprocess, time, uno
        from com.sun.star.beans import PropertyValue
        def prop(n, v):
            p = PropertyValue(); p.Name = n; p.Value = v; return p
        profile, doc_path, out, links, macro = sys.argv[1:6]
        os.makedirs(profile + "/user", exist_ok=True)
        open(profile + "/user/registrymodifications.xcu", "w").write('<?xml version="1.0" encoding="UTF-8"?><oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"><item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>0</value></prop></item></oor:items>')
        pipe = "lectref%d" % os.getpid()
        args = ["/usr/lib/libreoffice/program/soffice.bin", "--headless", "--invisible", "--norestore", "--nologo", "-env:UserInstallation=file://" + profile, "--accept=pipe,name=%s;urp;" % pipe]
        office = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        ctx = None
        for i in range(900):
            try:
                ctx = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe); break
            except Exception:
                if office.poll() is not None:
                    office = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(0.1)
        try:
            desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
            doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(doc_path), "_blank", 0, (prop("Hidden", True), prop("UpdateDocMode", 3), prop("MacroExecutionMode", 4)))
            if links == "links":
                doc.updateLinks()
            if macro == "macro":
                doc.getScriptProvider().getScript("vnd.sun.star.script:macro.py$main?language=Python&location=document").invoke((), (), ())
            kind = "impress_pdf_Export" if doc.supportsService("com.sun.star.presentation.PresentationDocument") else "writer_pdf_Export"
            doc.storeToURL(uno.systemPathToFileUrl(out), (prop("FilterName", kind),))
            doc.close(True)
        finally:
            office.kill()
            office.wait()
        """#
}
