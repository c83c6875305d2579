import Foundation
import LecternModel
import LecternSystem

/// Listens for the kernel's DRM uevents (a netlink socket, as udev does) and calls back when
/// a display is plugged, unplugged or changed. No udev daemon needed: on the board and on
/// the virtual board the kernel's own broadcast is enough.
public final class HotplugMonitor: Sendable {
    /// `sockaddr_nl` from <linux/netlink.h>.
    private struct SockaddrNL {
        var family: UInt16 = 16   // AF_NETLINK
        var pad: UInt16 = 0
        var pid: UInt32 = 0
        var groups: UInt32 = 1   // the kernel's uevent multicast group
    }

    private let fd: Int32
    private let onChange: @Sendable ([String: String]) -> Void

    /// Starts listening; `onChange` runs on the monitor's thread with the event's fields
    /// (ACTION, DEVNAME, HOTPLUG, …) for every `SUBSYSTEM=drm` event.
    public init(onChange: @escaping @Sendable ([String: String]) -> Void) throws {
        let fd = socket(16 /* AF_NETLINK */, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 15 /* NETLINK_KOBJECT_UEVENT */)
        guard fd >= 0 else { throw KMSOutput.Failure(description: "can't open the uevent socket: \(String(cString: strerror(errno)))") }
        var addr = SockaddrNL()
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<SockaddrNL>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw KMSOutput.Failure(description: "can't listen for display hotplug: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        self.onChange = onChange
        let callback = onChange
        // The thread keeps itself alive while it runs; it ends when deinit shuts the socket.
        let thread = Thread {
            ThreadName.set("lectern.hotplug")   // the name the kernel shows (/proc, top -H)
            var buf = [UInt8](repeating: 0, count: 8192)
            while true {
                let n = recv(fd, &buf, buf.count, 0)
                if n < 0 { if errno == EINTR { continue }; return }
                if n == 0 { return }
                guard let fields = HotplugMonitor.parse(Array(buf[0..<n])), fields["SUBSYSTEM"] == "drm" else { continue }
                callback(fields)
            }
        }
        thread.name = "lectern.hotplug"
        thread.start()
    }

    /// Parses a kernel uevent: "ACTION@DEVPATH\0KEY=VALUE\0…". Nil for libudev's own format.
    static func parse(_ bytes: [UInt8]) -> [String: String]? {
        let parts = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        guard let head = parts.first, head.contains("@") else { return nil }
        var fields: [String: String] = [:]
        for p in parts.dropFirst() {
            if let eq = p.firstIndex(of: "=") { fields[String(p[..<eq])] = String(p[p.index(after: eq)...]) }
        }
        return fields
    }

    deinit { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
}
