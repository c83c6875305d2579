import Crypto
import Foundation
import LecternModel
import LecternSystem
import LecternProtocol
import NIOSSL
import SwiftASN1
import X509

/// The certificate both ports present (docs/config.md, "TLS"): the admin's (`tls_certificate`
/// and `tls_key`), or a self-signed one the service makes on first start and keeps in
/// `data_dir/tls/` (the key 0600), so its fingerprint on the wall stays the same across
/// restarts and updates.
public struct TLSIdentity: Sendable {
    public let chain: [NIOSSLCertificate]
    let key: NIOSSLPrivateKey
    /// The leaf certificate's SHA-256 (shown on the idle screen, pinned by `lectern`).
    public let fingerprint: CertificateFingerprint
    /// Made by the service (not the admin's).
    public let selfSigned: Bool
    /// Where it came from, for the log.
    public let source: String

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The files of the self-signed certificate under `dataDir`.
    public static func selfSignedPaths(dataDir: String) -> (certificate: String, key: String) {
        (dataDir + "/tls/certificate.pem", dataDir + "/tls/key.pem")
    }

    /// The admin's files when the config names them (nil: none), else the self-signed pair
    /// (made now when missing). Throws with a message for the admin.
    public static func load(certificate: String?, key: String?, dataDir: String, room: String, addresses: [String]) throws -> TLSIdentity {
        if let certificate {
            return try read(certificate: certificate, key: key ?? "", selfSigned: false)
        }
        let paths = selfSignedPaths(dataDir: dataDir)
        let fm = FileManager.default
        if !fm.fileExists(atPath: paths.certificate) || !fm.fileExists(atPath: paths.key) {
            try makeSelfSigned(certificatePath: paths.certificate, keyPath: paths.key, room: room, addresses: addresses)
        }
        return try read(certificate: paths.certificate, key: paths.key, selfSigned: true)
    }

    static func read(certificate: String, key: String, selfSigned: Bool) throws -> TLSIdentity {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificate) } catch {
            throw Failure(description: "can't read the TLS certificate \(certificate): \(error) (tls_certificate: a PEM file, the leaf certificate first)")
        }
        guard let leaf = chain.first else { throw Failure(description: "the TLS certificate file \(certificate) holds no certificate") }
        let privateKey: NIOSSLPrivateKey
        do { privateKey = try NIOSSLPrivateKey(file: key, format: .pem) } catch {
            throw Failure(description: "can't read the TLS key \(key): \(error) (tls_key: the certificate's private key, PEM, unencrypted)")
        }
        // The key must be the certificate's: else every handshake would fail later.
        do {
            _ = try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey)))
        } catch {
            throw Failure(description: "the TLS key \(key) does not go with the certificate \(certificate): \(error)")
        }
        let der = try leaf.toDERBytes()
        return TLSIdentity(chain: chain, key: privateKey, fingerprint: CertificateFingerprint(der: der), selfSigned: selfSigned, source: certificate)
    }

    /// A P-256 key and a self-signed certificate for the room (10 years: nobody renews an
    /// appliance's own certificate), written with the key readable only by the service.
    static func makeSelfSigned(certificatePath: String, keyPath: String, room: String, addresses: [String]) throws {
        let dir = (certificatePath as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let key = P256.Signing.PrivateKey()
            let name = try DistinguishedName {
                CommonName("Lectern " + String(room.prefix(48)))
                OrganizationName("Lectern appliance (self-signed)")
            }
            var names: [GeneralName] = [.dnsName("localhost")]
            let host = ProcessInfo.processInfo.hostName
            if !host.isEmpty, host.count < 200 { names.append(.dnsName(host)) }
            for a in addresses + ["127.0.0.1"] {
                if let ip = ipBytes(a) { names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(ip)))) }
            }
            let now = Date()
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
                notValidBefore: now.addingTimeInterval(-86400), notValidAfter: now.addingTimeInterval(10 * 365 * 86400),
                issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames(names)
                },
                issuerPrivateKey: .init(key))
            let pem = try certificate.serializeAsPEM().pemString
            // The key first (AtomicFile: owner-only, never readable by others, not even for a
            // moment), then the certificate: a power cut between them makes both again.
            try AtomicFile.write(Data((key.pemRepresentation + "\n").utf8), to: keyPath)
            try AtomicFile.write(Data((pem + "\n").utf8), to: certificatePath)
        } catch let f as Failure {
            throw Failure(description: "can't make the self-signed TLS certificate in \(dir): \(f.description)")
        } catch {
            throw Failure(description: "can't make the self-signed TLS certificate in \(dir): \(error)")
        }
    }

    /// The 4 or 16 bytes of an IP address in text ("192.0.2.7", "fe80::1"); nil for anything else.
    static func ipBytes(_ text: String) -> [UInt8]? {
        let bare = text.split(separator: "%").first.map(String.init) ?? text
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// The server side of TLS for both ports.
    public func serverContext() throws -> NIOSSLContext {
        var c = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        c.minimumTLSVersion = .tlsv12
        // A closing connection waits this long for the peer's close_notify (NIOSSL: 5 s):
        // one that doesn't read (dropped for it) never sends one.
        c.shutdownTimeout = .seconds(1)
        return try NIOSSLContext(configuration: c)
    }
}
