import CDRM
import Foundation
import LecternModel
import LecternSystem
import Synchronization

/// The HDMI output through DRM/KMS, kept short and linear in the spirit of kmscube and
/// mpv's drm_common.c: open the card, pick connector, CRTC and mode, make two XRGB8888
/// dumb buffers, set the mode, then page-flip with flip events. A frame is drawn only
/// into the buffer that is not scanned out, and a present returns when its flip is done.
///
/// Legacy modesetting (drmModeSetCrtc + drmModePageFlip): every KMS driver has it, it is
/// enough for one plane of one CRTC, and it keeps this file short.
///
/// Everything that changes (the card's connector, CRTC, mode and buffers) is one `Card`
/// value behind a `Mutex`, so the compiler checks that it is only touched under the lock;
/// the C pointers it keeps (the saved CRTC, the mapped buffers) never leave it: `readBack`
/// copies.
public final class KMSOutput: Output, Sendable {
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    public struct Options: Sendable {
        /// `/dev/dri/cardN`; nil: the first card with a connected connector.
        public var card: String?
        /// Like `HDMI-A-1`; nil: the first connected connector.
        public var connector: String?
        /// The mode to ask for; nil: the connector's preferred mode.
        public var mode: RequestedMode?
        public init(card: String? = nil, connector: String? = nil, mode: RequestedMode? = nil) {
            self.card = card; self.connector = connector; self.mode = mode
        }
    }

    fileprivate struct Buffer {
        var handle: UInt32 = 0, fb: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        var map: UnsafeMutableRawPointer?
        var frame: Frame?
    }

    public let options: Options
    public let cardPath: String
    public var mode: DisplayMode { card.withLock { $0.mode } }
    public var connectorName: String { card.withLock { $0.connectorName } }
    public var name: String { "kms \(cardPath) \(connectorName) \(mode)" }

    /// The open card and what was set on it: touched only with the lock held.
    fileprivate struct Card {
        let fd: Int32
        let path: String
        let options: Options
        var mode: DisplayMode
        var connectorName: String
        var connectorID: UInt32 = 0
        var crtcID: UInt32 = 0
        var drmMode = drmModeModeInfo()
        var savedCrtc: UnsafeMutablePointer<drmModeCrtc>?
        var buffers: [Buffer] = []
        var front = 0
        var connected = false
        var presents = 0
    }
    private let card: Mutex<Card>

    /// Opens the card and sets the mode; throws a `Failure` that tells the admin what to do.
    public init(options: Options = Options()) throws {
        self.options = options
        let path: String
        if let card = options.card {
            path = card
        } else {
            let cards = CardProbe.cards()
            guard !cards.isEmpty else {
                throw Failure(description: "no DRM card: /dev/dri/card* is missing or can't be opened (is the KMS driver loaded? on a Pi: dtoverlay=vc4-kms-v3d)")
            }
            path = cards.first(where: { $0.connectors.contains(where: \.connected) })?.path ?? cards[0].path
        }
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            if e == EACCES || e == EPERM {
                throw Failure(description: "permission denied opening \(path): add the service user to the 'video' group")
            }
            throw Failure(description: "can't open \(path): \(String(cString: strerror(e)))")
        }
        cardPath = path
        var opened = Card(fd: fd, path: path, options: options, mode: options.mode?.displayMode ?? .fullHD, connectorName: options.connector ?? "?")
        do {
            try opened.modeset()
        } catch let f as Failure where f.description.hasPrefix("no display connected") {
            // No projector yet: keep running and wait for the hotplug event (reprobe()).
            opened.connected = false
        } catch {
            opened.close()
            throw error
        }
        card = Mutex(opened)
    }

    deinit {
        card.withLock { $0.close() }
    }

    /// Is a display connected now (false while the cable is out).
    public var isConnected: Bool { card.withLock { $0.connected } }

    // MARK: modeset

    /// A KMS connector changes: the service listens for hotplug uevents and calls `reprobe`.
    public var wantsHotplugEvents: Bool { true }

    /// Probes the connector and sets the mode again. Returns true when a display appeared
    /// or the mode changed (so the caller redraws, at the new size). While nothing is
    /// connected, keeps the old mode and marks the output disconnected: presents are then
    /// dropped, not errors.
    @discardableResult
    public func reprobe() throws -> Bool {
        try card.withLock { (c: inout Card) throws -> Bool in
            let before = c.mode
            let wasConnected = c.connected
            do {
                try c.modeset()
            } catch let f as Failure where f.description.hasPrefix("no display connected") {
                c.connected = false
                return false
            }
            return c.mode != before || (!wasConnected && c.connected)
        }
    }

    // MARK: presenting

    public func present(draw: (Frame) throws -> Void) throws {
        try card.withLock { (c: inout Card) throws -> Void in try c.present(draw: draw) }
    }

    public func readBack() -> Frame {
        card.withLock { c in
            guard let f = c.buffers.isEmpty ? nil : c.buffers[c.front].frame else { return Frame(width: c.mode.width, height: c.mode.height) }
            return f.clone()
        }
    }

    public var presentCount: Int { card.withLock { $0.presents } }
}

extension KMSOutput.Card {
    typealias Failure = KMSOutput.Failure
    typealias Buffer = KMSOutput.Buffer

    /// Leaves the display as it was found (the console's CRTC configuration back), lets the
    /// buffers go and closes the card.
    mutating func close() {
        if let c = savedCrtc {
            var conn = connectorID
            if c.pointee.buffer_id != 0 {
                drmModeSetCrtc(fd, c.pointee.crtc_id, c.pointee.buffer_id, c.pointee.x, c.pointee.y, &conn, 1, &c.pointee.mode)
            }
            drmModeFreeCrtc(c)
            savedCrtc = nil
        }
        destroyBuffers()
        Glibc.close(fd)
    }

    mutating func modeset() throws {
        let cardPath = path
        guard let res = drmModeGetResources(fd) else {
            throw Failure(description: "\(cardPath) is not a KMS device (drmModeGetResources failed: \(String(cString: strerror(errno))))")
        }
        defer { drmModeFreeResources(res) }

        // The connector.
        var chosen: UnsafeMutablePointer<drmModeConnector>?
        var seen: [String] = []
        for i in 0..<Int(res.pointee.count_connectors) {
            guard let c = drmModeGetConnector(fd, res.pointee.connectors[i]) else { continue }
            let info = CardProbe.connector(c.pointee)
            seen.append("\(info.name)\(info.connected ? "" : " (disconnected)")")
            let wanted = options.connector.map { $0 == info.name } ?? true
            if chosen == nil, wanted, info.connected, c.pointee.count_modes > 0 { chosen = c } else { drmModeFreeConnector(c) }
        }
        guard let conn = chosen else {
            if let name = options.connector, !seen.contains(where: { $0.hasPrefix(name) }) {
                throw Failure(description: "no connector named \(name) on \(cardPath); it has: \(seen.joined(separator: ", "))")
            }
            throw Failure(description: "no display connected to \(cardPath) (\(seen.joined(separator: ", "))): waiting for one")
        }
        defer { drmModeFreeConnector(conn) }
        let connInfo = CardProbe.connector(conn.pointee)

        // The mode: the one asked for if offered, else the preferred one.
        var picked: drmModeModeInfo?
        var preferred: drmModeModeInfo = conn.pointee.modes[0]
        for m in 0..<Int(conn.pointee.count_modes) where conn.pointee.modes[m].type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 {
            preferred = conn.pointee.modes[m]; break
        }
        if let want = options.mode {
            // The rate asked for; with none, 60 Hz when offered at that size, else the first.
            let offered = (0..<Int(conn.pointee.count_modes)).map { conn.pointee.modes[$0] }.filter {
                want.matches(width: Int($0.hdisplay), height: Int($0.vdisplay), refresh: Double($0.vrefresh))
            }
            picked = offered.first { abs(Double($0.vrefresh) - 60) < 1 || want.refresh != nil } ?? offered.first
            guard picked != nil else {
                throw Failure(description: "\(connInfo.name) does not offer \(want); it offers: \(connInfo.modes.joined(separator: ", "))")
            }
        }
        let mi = picked ?? preferred

        // A CRTC that can drive the connector: its encoder's, else any compatible one.
        var crtc: UInt32 = 0
        if conn.pointee.encoder_id != 0, let enc = drmModeGetEncoder(fd, conn.pointee.encoder_id) {
            crtc = enc.pointee.crtc_id
            drmModeFreeEncoder(enc)
        }
        if crtc == 0 {
            outer: for e in 0..<Int(conn.pointee.count_encoders) {
                guard let enc = drmModeGetEncoder(fd, conn.pointee.encoders[e]) else { continue }
                defer { drmModeFreeEncoder(enc) }
                for c in 0..<Int(res.pointee.count_crtcs) where enc.pointee.possible_crtcs & (1 << UInt32(c)) != 0 {
                    crtc = res.pointee.crtcs[c]; break outer
                }
            }
        }
        guard crtc != 0 else { throw Failure(description: "no CRTC can drive \(connInfo.name) on \(cardPath)") }

        if savedCrtc == nil { savedCrtc = drmModeGetCrtc(fd, crtc) }
        let newMode = DisplayMode(width: Int(mi.hdisplay), height: Int(mi.vdisplay), refresh: Double(mi.vrefresh))
        if newMode != mode || buffers.isEmpty {
            destroyBuffers()
            mode = newMode
            try createBuffers(width: Int(mi.hdisplay), height: Int(mi.vdisplay))
        }
        connectorID = conn.pointee.connector_id
        connectorName = connInfo.name
        crtcID = crtc
        drmMode = mi
        var cid = connectorID
        // Show what the front buffer holds (black at first, the last frame after a replug).
        if drmModeSetCrtc(fd, crtcID, buffers[front].fb, 0, 0, &cid, 1, &drmMode) != 0 {
            let e = errno
            if e == EACCES || e == EPERM || e == EBUSY {
                throw Failure(description: "\(cardPath) is busy: another process is DRM master (a desktop or another lecternd?); stop it or run with --display virtual")
            }
            throw Failure(description: "modeset \(newMode) on \(connInfo.name) failed: \(String(cString: strerror(e)))")
        }
        connected = true
    }

    mutating func createBuffers(width: Int, height: Int) throws {
        for _ in 0..<2 {
            var b = Buffer()
            guard drmModeCreateDumbBuffer(fd, UInt32(width), UInt32(height), 32, 0, &b.handle, &b.pitch, &b.size) == 0 else {
                throw Failure(description: "can't allocate a \(width)x\(height) dumb buffer: \(String(cString: strerror(errno)))")
            }
            var handles: (UInt32, UInt32, UInt32, UInt32) = (b.handle, 0, 0, 0)
            var pitches: (UInt32, UInt32, UInt32, UInt32) = (b.pitch, 0, 0, 0)
            var offsets: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
            let rc = withUnsafePointer(to: &handles) { h in
                withUnsafePointer(to: &pitches) { p in
                    withUnsafePointer(to: &offsets) { o in
                        drmModeAddFB2(
                            fd, UInt32(width), UInt32(height), fourcc("XR24"),
                            UnsafeRawPointer(h).assumingMemoryBound(to: UInt32.self),
                            UnsafeRawPointer(p).assumingMemoryBound(to: UInt32.self),
                            UnsafeRawPointer(o).assumingMemoryBound(to: UInt32.self), &b.fb, 0)
                    }
                }
            }
            guard rc == 0 else {
                drmModeDestroyDumbBuffer(fd, b.handle)
                throw Failure(description: "can't make an XRGB8888 framebuffer: \(String(cString: strerror(errno)))")
            }
            var offset: UInt64 = 0
            guard drmModeMapDumbBuffer(fd, b.handle, &offset) == 0,
                let m = mmap(nil, Int(b.size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset)),
                m != MAP_FAILED
            else {
                throw Failure(description: "can't map a dumb buffer: \(String(cString: strerror(errno)))")
            }
            b.map = m
            let frame = Frame(wrapping: m, width: width, height: height, stride: Int(b.pitch))
            frame.fill(.black)
            b.frame = frame
            buffers.append(b)
        }
        front = 0
    }

    mutating func destroyBuffers() {
        for b in buffers {
            if let m = b.map { munmap(m, Int(b.size)) }
            drmModeRmFB(fd, b.fb)
            drmModeDestroyDumbBuffer(fd, b.handle)
        }
        buffers = []
    }

    mutating func present(draw: (Frame) throws -> Void) throws {
        guard connected, buffers.count == 2 else { return }   // no display: keep serving, draw nothing
        let back = 1 - front
        try draw(buffers[back].frame!)
        var done: Int32 = 0
        guard drmModePageFlip(fd, crtcID, buffers[back].fb, UInt32(DRM_MODE_PAGE_FLIP_EVENT), &done) == 0 else {
            let e = errno
            // The display went away between probe and flip: not fatal, the hotplug path re-probes.
            connected = false
            throw Failure(description: "page flip failed: \(String(cString: strerror(e)))")
        }
        try waitForFlip(&done)
        front = back
        presents += 1
    }

    func waitForFlip(_ done: inout Int32) throws {
        var ctx = drmEventContext()
        ctx.version = 2
        ctx.page_flip_handler = { _, _, _, _, userData in
            userData?.assumingMemoryBound(to: Int32.self).pointee = 1
        }
        let deadline = MonotonicClock.now() + 1.0
        while done == 0 {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, (deadline - MonotonicClock.now()) * 1000))
            let r = poll(&p, 1, left)
            if r < 0 && errno == EINTR { continue }
            guard r > 0 else { throw Failure(description: "no flip event within 1 s: the display controller is stuck") }
            drmHandleEvent(fd, &ctx)
        }
    }

    func fourcc(_ s: String) -> UInt32 {
        let b = Array(s.utf8)
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }
}
