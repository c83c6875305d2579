import CDRM
import Foundation

/// Finds DRM cards the service could drive: `/dev/dri/card*` that open and have at least
/// one connector. The KMS output itself builds on this.
public enum CardProbe {
    public struct Card: Equatable, Sendable {
        public var path: String
        public var driver: String
        public var connectors: [Connector]
    }

    public struct Connector: Equatable, Sendable {
        public var id: UInt32
        public var name: String
        public var connected: Bool
        /// Offered modes as `WxH@R`, preferred first.
        public var modes: [String]
    }

    /// Every card under `directory` that opens (an empty list when there is none).
    public static func cards(in directory: String = "/dev/dri") -> [Card] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix("card") }.sorted()
        return names.compactMap { probe(path: directory + "/" + $0) }
    }

    public static func probe(path: String) -> Card? {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var driver = "unknown"
        if let v = drmGetVersion(fd) {
            if let n = v.pointee.name { driver = String(cString: n) }
            drmFreeVersion(v)
        }
        guard let res = drmModeGetResources(fd) else { return Card(path: path, driver: driver, connectors: []) }
        defer { drmModeFreeResources(res) }
        var connectors: [Connector] = []
        for i in 0..<Int(res.pointee.count_connectors) {
            guard let c = drmModeGetConnector(fd, res.pointee.connectors[i]) else { continue }
            defer { drmModeFreeConnector(c) }
            connectors.append(connector(c.pointee))
        }
        return Card(path: path, driver: driver, connectors: connectors)
    }

    static func connector(_ c: drmModeConnector) -> Connector {
        let typeName = drmModeGetConnectorTypeName(c.connector_type).map { String(cString: $0) } ?? "Unknown"
        var modes: [String] = []
        for m in 0..<Int(c.count_modes) {
            let mode = c.modes[m]
            modes.append("\(mode.hdisplay)x\(mode.vdisplay)@\(mode.vrefresh)")
        }
        return Connector(
            id: c.connector_id, name: "\(typeName)-\(c.connector_type_id)",
            connected: c.connection == DRM_MODE_CONNECTED, modes: modes)
    }
}
