import Foundation
import NIOSSL

/// How TLS is spoken to a service: a client certificate (mutual TLS), a private CA, or — asked for explicitly —
/// no verification at all.
///
/// Verification is on by default. The key's passphrase comes from the environment, never the command line. What
/// cannot be read is a sentence naming the file, never its contents.
public struct ClientTLS: Sendable, Hashable {
    /// PEM: the client's certificate (and any intermediates after it).
    public var certificateFile: String?
    /// PEM: the client's private key, encrypted or not.
    public var keyFile: String?
    /// The key's passphrase (`CARDEALER_CLIENT_KEY_PASSPHRASE`).
    public var keyPassphrase: String?
    /// PEM: the CAs trusted in place of the system's.
    public var caFile: String?
    /// No certificate verification: any server is believed (`--insecure`, said on the status line).
    public var insecure = false
    /// The CA file's certificates are trusted besides the system's, not in place of them (an authorization server
    /// elsewhere may be a public identity provider, or one behind the same private CA).
    public var caFileAdds = false

    public init(
        certificateFile: String? = nil, keyFile: String? = nil, keyPassphrase: String? = nil, caFile: String? = nil,
        insecure: Bool = false
    ) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.keyPassphrase = keyPassphrase
        self.caFile = caFile
        self.insecure = insecure
    }

    /// What the token endpoint at `tokenURL` is spoken to with, always verified (`--insecure` is the service's,
    /// never the authorization server's): on the service's own origin, these settings; elsewhere, the system's CAs
    /// and the CA file's besides, and the client certificate (with which a client may authenticate, RFC 8705).
    public func forTokenEndpoint(_ tokenURL: String, serviceRoot: String) -> ClientTLS? {
        var verified = self
        verified.insecure = false
        guard let token = URL(string: tokenURL).flatMap(HTTPClientTransport.Origin.init),
            let service = URL(string: serviceRoot).flatMap(HTTPClientTransport.Origin.init), token == service
        else {
            verified.caFileAdds = true
            return verified
        }
        return verified
    }

    /// A TLS setting that cannot be used, in a sentence.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// The client configuration these settings make.
    public func configuration() throws(Problem) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if certificateFile != nil || keyFile != nil {
            guard let certificateFile, let keyFile else {
                throw Problem(description: "--client-cert and --client-key go together: give both")
            }
            do {
                tls.certificateChain = try NIOSSLCertificate.fromPEMFile(certificateFile).map { .certificate($0) }
            } catch {
                throw Problem(description: "cannot read the client certificate \(certificateFile) as PEM")
            }
            guard !tls.certificateChain.isEmpty else {
                throw Problem(description: "the client certificate file \(certificateFile) holds no certificate")
            }
            do {
                let passphrase = Array((keyPassphrase ?? "").utf8)
                tls.privateKey = .privateKey(
                    try NIOSSLPrivateKey(file: keyFile, format: .pem) { (set: ([UInt8]) -> Void) in set(passphrase) })
            } catch {
                throw Problem(
                    description: "cannot read the client key \(keyFile) as PEM"
                        + (keyPassphrase == nil ? " (if it is encrypted, set CARDEALER_CLIENT_KEY_PASSPHRASE)" : ""))
            }
        }
        if let caFile {
            do {
                let roots = try NIOSSLCertificate.fromPEMFile(caFile)
                guard !roots.isEmpty else { throw Problem(description: "") }
                if caFileAdds {
                    tls.additionalTrustRoots = [.certificates(roots)]
                } else {
                    tls.trustRoots = .certificates(roots)
                }
            } catch {
                throw Problem(description: "cannot read the CA file \(caFile) as PEM certificates")
            }
        }
        if insecure { tls.certificateVerification = .none }
        return tls
    }
}
