/// The office converter's driver: Python 3 with LibreOffice's UNO bridge, run inside the
/// sandbox (`OfficeSandbox`). It starts LibreOffice with a fresh profile (macros off,
/// untrusted links blocked, no autosave), loads the one document it is given read-only
/// with macros never run and links never updated, checks what a zipped document unpacks
/// to and how many pages it has, reads a presentation's speaker notes, exports page 1 alone
/// as a PDF of its own, then the whole PDF, printing its progress as the export's status
/// indicator moves.
///
/// Its lines on standard output: `ready` (LibreOffice is up: a job may come), then for the
/// job (one JSON line on standard input: input, output, notes, first, maxPages, maxUnpacked)
/// `first PAGES` (page 1 alone is at `first`, the notes written; PAGES in all, 0: not
/// known), `progress DONE TOTAL` …, and `done PAGES` or `error KIND MESSAGE` (KIND:
/// unreadable, tooLarge, tooManyPages, outOfMemory).
enum OfficeDriverScript {
    static let text = #"""
        # The office converter's driver, run by python3 inside the conversion's bubblewrap sandbox
        # (Sources/LecternConvert/OfficeSandbox.swift; this text is OfficeDriverScript.text). It starts LibreOffice headless with a fresh
        # profile (macros off, untrusted links blocked), connects to it over a pipe, says "ready",
        # then converts the one job it reads on stdin (a JSON line) and says how it went on stdout,
        # one line each: "first PAGES", "progress DONE TOTAL", "done PAGES", "error KIND MESSAGE".
        import json, os, subprocess, sys, time, zipfile

        SOFFICE = sys.argv[1]
        MEMORY = int(sys.argv[2])
        PROFILE = "/tmp/profile"
        peak = [0]
        PIPE = "lectern"

        def say(*words):
            sys.stdout.write(" ".join(str(w) for w in words) + "\n")
            sys.stdout.flush()

        def fail(kind, message):
            say("error", kind, message.replace("\n", " ")[:300])
            sys.stdout.flush()
            os._exit(0)

        def watch(office):
            """LibreOffice's data segment, read every 50 ms: past 90 % of the limit when it broke,
            the limit is what broke it."""
            import threading
            def run():
                while office.poll() is None:
                    try:
                        with open("/proc/%d/status" % office.pid) as f:
                            for line in f:
                                if line.startswith("VmData:"):
                                    peak[0] = max(peak[0], int(line.split()[1]) * 1024)
                    except OSError:
                        return
                    time.sleep(0.05)
            threading.Thread(target=run, daemon=True).start()

        def broke(office, what):
            """LibreOffice failed while `what`: said as the memory limit when it was near it."""
            time.sleep(0.2)
            if peak[0] > MEMORY * 0.9 or (office.poll() is not None and office.returncode < 0 and peak[0] > MEMORY * 0.75):
                fail("outOfMemory", str(MEMORY))
            fail("unreadable", what)

        XCU = """<?xml version="1.0" encoding="UTF-8"?>
        <oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
        <item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
        <item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" oor:op="fuse"><value>true</value></prop></item>
        <item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true</value></prop></item>
        <item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
        <item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="CreateBackup" oor:op="fuse"><value>false</value></prop></item>
        <item oor:path="/org.openoffice.Office.Recovery/AutoSave"><prop oor:name="Enabled" oor:op="fuse"><value>false</value></prop></item>
        <item oor:path="/org.openoffice.Office.Recovery/RecoveryInfo"><prop oor:name="Enabled" oor:op="fuse"><value>false</value></prop></item>
        </oor:items>
        """

        def start_office():
            os.makedirs(PROFILE + "/user", exist_ok=True)
            with open(PROFILE + "/user/registrymodifications.xcu", "w") as f:
                f.write(XCU)
            args = [SOFFICE, "--headless", "--invisible", "--nologo", "--norestore", "--nolockcheck", "--nodefault",
                    "-env:UserInstallation=file://" + PROFILE, "--accept=pipe,name=%s;urp;" % PIPE]
            for _ in range(3):   # a fresh profile: the first start asks to be started again (81)
                office = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=sys.stderr, stderr=sys.stderr)
                ctx = connect(office)
                if ctx is not None:
                    watch(office)
                    return office, ctx
                if office.wait() != 81:
                    fail("unreadable", "LibreOffice did not start")
            fail("unreadable", "LibreOffice did not start")

        def connect(office):
            import uno
            local = uno.getComponentContext()
            resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
            for _ in range(600):
                if office.poll() is not None:
                    return None
                try:
                    return resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % PIPE)
                except Exception:
                    time.sleep(0.05)
            return None

        def prop(name, value):
            import uno
            from com.sun.star.beans import PropertyValue
            p = PropertyValue()
            p.Name = name
            p.Value = value
            return p

        def check_parts(path, limit, max_pages):
            """A zipped document's parts, unpacked as a stream and counted, not kept: past the
            limit it is refused (a zip bomb lies in its declared sizes, not in what it unpacks to).
            A presentation's slides are counted on the way (OOXML: its slide parts; ODF: the
            pages in content.xml), so a deck of too many is refused before LibreOffice loads it."""
            if not zipfile.is_zipfile(path):
                return
            total = 0
            slides = 0
            with zipfile.ZipFile(path) as z:
                for info in z.infolist():
                    name = info.filename
                    if name.startswith("ppt/slides/slide") and name.endswith(".xml"):
                        slides += 1
                    count_pages = name == "content.xml"
                    tail = b""
                    with z.open(info) as part:
                        while True:
                            piece = part.read(1 << 20)
                            if not piece:
                                break
                            total += len(piece)
                            if total > limit:
                                fail("tooLarge", str(limit))
                            if count_pages:
                                window = tail + piece
                                slides += window.count(b"<draw:page ") + window.count(b"<draw:page>") - tail.count(b"<draw:page ") - tail.count(b"<draw:page>")
                                tail = window[-16:]
                    if slides > max_pages:
                        fail("tooManyPages", str(max_pages))

        # Shapes of a notes page whose text is the speaker's (besides the notes placeholder):
        # text boxes a tool put there; never the slide's picture, header, footer, date or number.
        TEXT_SHAPES = ("com.sun.star.drawing.TextShape", "com.sun.star.presentation.OutlinerShape", "com.sun.star.presentation.SubtitleShape")

        def main():
            office, ctx = start_office()
            say("ready")
            line = sys.stdin.readline()
            if not line:
                os._exit(0)
            job = json.loads(line)
            check_parts(job["input"], job["maxUnpacked"], job["maxPages"])
            import uno, unohelper
            from com.sun.star.task import XStatusIndicator
            smgr = ctx.ServiceManager
            desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
            load = (prop("Hidden", True), prop("ReadOnly", True), prop("MacroExecutionMode", 0), prop("UpdateDocMode", 0),
                    prop("Silent", True))
            try:
                doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(job["input"]), "_blank", 0, load)
            except Exception as e:
                broke(office, "LibreOffice can't read it (%s)" % type(e).__name__)
            if doc is None:
                fail("unreadable", "LibreOffice can't read it (damaged, or protected by a password)")
            pages = 0
            notes = {}
            first = 1   # the document's page that is the deck's page 1 (a PageRange counts hidden slides)
            if doc.supportsService("com.sun.star.presentation.PresentationDocument"):
                filter_name = "impress_pdf_Export"
                slides = doc.getDrawPages()
                if slides.getCount() > job["maxPages"]:
                    fail("tooManyPages", str(job["maxPages"]))
                first = 0
                for i in range(slides.getCount()):
                    slide = slides.getByIndex(i)
                    try:
                        if slide.getPropertyValue("Visible") is False:
                            continue
                    except Exception:
                        pass
                    # A hidden slide is no page of the PDF: notes go by the page they are on.
                    pages += 1
                    if first == 0:
                        first = i + 1
                    np = slide.getNotesPage()
                    texts = []
                    for j in range(np.getCount()):
                        shape = np.getByIndex(j)
                        kind = shape.getShapeType()
                        if kind == "com.sun.star.presentation.NotesShape" or (kind in TEXT_SHAPES and hasattr(shape, "getString")):
                            texts.append(shape.getString().strip())
                    text = "\n\n".join(t for t in texts if t)
                    if text:
                        notes[str(pages)] = text[:16384]
            elif doc.supportsService("com.sun.star.text.TextDocument"):
                filter_name = "writer_pdf_Export"
                try:
                    pages = doc.getCurrentController().getPropertyValue("PageCount")
                except Exception:
                    pages = 0
                if pages > job["maxPages"]:
                    fail("tooManyPages", str(job["maxPages"]))
            elif doc.supportsService("com.sun.star.sheet.SpreadsheetDocument"):
                filter_name = "calc_pdf_Export"
            else:
                fail("unreadable", "it is not a presentation, text document or spreadsheet")
            say("progress", 0, pages)

            class Progress(unohelper.Base, XStatusIndicator):
                def __init__(self):
                    self.range = 0
                def start(self, text, r):
                    self.range = r
                def end(self):
                    pass
                def setText(self, text):
                    pass
                def setValue(self, v):
                    if self.range > 0 and pages > 0:
                        say("progress", min(pages, int(v * pages / self.range)), pages)
                def reset(self):
                    pass

            with open(job["notes"], "w") as f:
                json.dump(notes, f)
            # The filter's own defaults (as `soffice --convert-to pdf` exports: no notes pages)
            # but one: pictures go into the PDF as the document has them (a JPEG's own bytes),
            # not decoded and compressed again. Faster, nothing lost, and page 1 alone (below)
            # is then the same as page 1 of the whole deck (docs/protocol.md §30.8).
            def filter_data(*more):
                return uno.Any("[]com.sun.star.beans.PropertyValue", (prop("ReduceImageResolution", False),) + more)

            # Page 1 first, a PDF of its own: shown while the rest is made.
            if job.get("first") and first > 0:
                try:
                    alone = (prop("FilterName", filter_name), prop("FilterData", filter_data(prop("PageRange", str(first)))))
                    uno.invoke(doc, "storeToURL", (uno.systemPathToFileUrl(job["first"]), alone))
                    say("first", pages)
                except Exception:
                    pass   # no page 1 alone: the whole deck is waited for
            store = (prop("FilterName", filter_name), prop("FilterData", filter_data()), prop("StatusIndicator", Progress()))
            try:
                uno.invoke(doc, "storeToURL", (uno.systemPathToFileUrl(job["output"]), store))
            except Exception as e:
                broke(office, "LibreOffice couldn't make its PDF (%s)" % type(e).__name__)
            say("done", pages)
            try:
                doc.close(True)
            except Exception:
                pass

        main()
        os._exit(0)
        """#
}
