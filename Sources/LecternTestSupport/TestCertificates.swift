import Crypto
import Foundation
import LecternProtocol
import SwiftASN1
import X509

/// A certificate authority of the test's own and a server certificate it signed for
/// 127.0.0.1 and localhost, as PEM files in `dir`: what an admin's `tls_certificate` and
/// `tls_key` would be, and the CA a browser is told to trust (an NSS db, `certutil`).
public struct TestCertificates: Sendable {
    public let caPath: String
    public let certificatePath: String
    public let keyPath: String
    /// The server certificate's SHA-256.
    public let fingerprint: CertificateFingerprint

    public init(dir: String, commonName: String = "Lectern test appliance") throws {
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Lectern test CA \(UUID().uuidString.prefix(8))") }
        let now = Date()
        let ca = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(30 * 86400),
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(caKey))
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(30 * 86400),
            issuer: caName, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(caKey))
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        caPath = dir + "/test-ca.pem"
        certificatePath = dir + "/server.pem"
        keyPath = dir + "/server-key.pem"
        try (try ca.serializeAsPEM().pemString + "\n").write(toFile: caPath, atomically: true, encoding: .utf8)
        try (try leaf.serializeAsPEM().pemString + "\n").write(toFile: certificatePath, atomically: true, encoding: .utf8)
        try (key.pemRepresentation + "\n").write(toFile: keyPath, atomically: true, encoding: .utf8)
        chmod(keyPath, 0o600)
        var serializer = DER.Serializer()
        try serializer.serialize(leaf)
        fingerprint = CertificateFingerprint(der: serializer.serializedBytes)
    }

    /// The SHA-256 of the (first) certificate in a PEM file: what a client pins, for a
    /// `lecternd` the test started (its self-signed certificate in data_dir/tls).
    public static func fingerprint(ofPEM path: String) throws -> CertificateFingerprint {
        let certificate = try Certificate(pemEncoded: try String(contentsOfFile: path, encoding: .utf8))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return CertificateFingerprint(der: serializer.serializedBytes)
    }

    /// The SHA-256 of a PEM certificate file as openssl computes it (an outside check of
    /// the service's own arithmetic): 64 lower-case hex digits.
    public static func opensslFingerprint(_ pemPath: String) throws -> String {
        let r = try Fixtures.run("openssl", ["x509", "-in", pemPath, "-noout", "-fingerprint", "-sha256"])
        let text = String(decoding: r.out, as: UTF8.self)
        guard r.status == 0, let eq = text.firstIndex(of: "=") else { throw Fixtures.ToolError(description: "openssl x509: \(r.err) \(text)") }
        return text[text.index(after: eq)...].filter { $0.isHexDigit }.lowercased()
    }
}
