import CNIOBoringSSL
import Foundation
import LecternProtocol

/// The client side of one TLS session for the raw sockets, as the service ships (TLS on):
/// BoringSSL (NIOSSL's own, through its C module) between two memory buffers, so the
/// socket stays an ordinary blocking descriptor that the test reads and writes when it
/// chooses. Nothing is read from the kernel that the test didn't ask for: a client that
/// doesn't read still fills the service's send buffer, as a plain one did.
///
/// The certificate is checked by its SHA-256 (pinning, docs/protocol.md §25.5) after the
/// handshake and before any byte of the test's is sealed. Each call takes the session's
/// lock: a reading thread and a writing thread may share it (`PingFlood`).
final class TLSClientSession {
    private let lock = NSLock()
    private let ssl: OpaquePointer

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init() throws {
        guard let context = SSL_CTX_new(TLS_method()) else { throw Failure(description: "SSL_CTX_new failed") }
        // The SSL keeps its own reference to the context.
        defer { SSL_CTX_free(context) }
        SSL_CTX_set_min_proto_version(context, UInt16(TLS1_2_VERSION))
        // No chain or name check: the fingerprint is the check (`peerFingerprint`).
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        guard let ssl = SSL_new(context), let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            throw Failure(description: "SSL_new failed")
        }
        SSL_set_bio(ssl, input, output)   // the SSL owns both buffers now
        SSL_set_connect_state(ssl)
        self.ssl = ssl
    }

    deinit { SSL_free(ssl) }

    enum Handshake { case done, needsInput, failed(String) }

    /// Advances the handshake; what it has to send is in `takeOutput()`.
    func handshake() -> Handshake {
        lock.withLock {
            let rc = SSL_do_handshake(ssl)
            if rc == 1 { return .done }
            let e = SSL_get_error(ssl, rc)
            if e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE { return .needsInput }
            return .failed(Self.errorText(e))
        }
    }

    /// The SHA-256 of the certificate the peer presented (nil before the handshake).
    var peerFingerprint: CertificateFingerprint? {
        lock.withLock {
            guard let cert = SSL_get_peer_certificate(ssl) else { return nil }
            defer { X509_free(cert) }
            let n = i2d_X509(cert, nil)
            guard n > 0 else { return nil }
            var der = [UInt8](repeating: 0, count: Int(n))
            let written = der.withUnsafeMutableBufferPointer { b -> Int32 in
                var p = b.baseAddress
                return i2d_X509(cert, &p)
            }
            return written == n ? CertificateFingerprint(der: der) : nil
        }
    }

    /// Bytes from the peer (records, whole or in part).
    func feed(_ bytes: [UInt8]) {
        lock.withLock {
            bytes.withUnsafeBytes { b in _ = BIO_write(SSL_get_rbio(ssl), b.baseAddress, Int32(b.count)) }
        }
    }

    /// The plain bytes the records fed so far carry; `closed` once the peer ended the
    /// session (close_notify or a fatal alert).
    func open() -> (plain: [UInt8], closed: Bool) {
        lock.withLock {
            var out: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16384)
            while true {
                let n = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
                if n > 0 {
                    out += chunk[0..<Int(n)]
                    continue
                }
                let e = SSL_get_error(ssl, n)
                return (out, !(e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE))
            }
        }
    }

    /// Seals plain bytes into records (taken with `takeOutput()`); false if the session failed.
    func seal(_ plain: [UInt8]) -> Bool {
        lock.withLock {
            guard !plain.isEmpty else { return true }
            return plain.withUnsafeBytes { b in SSL_write(ssl, b.baseAddress, Int32(b.count)) } == Int32(plain.count)
        }
    }

    /// What the session has for the peer (handshake messages, records, alerts), in order.
    func takeOutput() -> [UInt8] {
        lock.withLock {
            let bio = SSL_get_wbio(ssl)
            let n = Int(BIO_ctrl_pending(bio))
            guard n > 0 else { return [] }
            var out = [UInt8](repeating: 0, count: n)
            let got = out.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(n)) }
            return got > 0 ? Array(out[0..<Int(got)]) : []
        }
    }

    private static func errorText(_ e: Int32) -> String {
        let code = ERR_get_error()
        ERR_clear_error()   // the queue is the thread's: nothing left for the next session
        guard code != 0 else { return "SSL error \(e)" }
        var buf = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buf, buf.count)
        return String(cString: buf)
    }
}
