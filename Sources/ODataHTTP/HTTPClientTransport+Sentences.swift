import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPClientTransport {
    /// Whether the server answered in a way asking again would repeat: past the size limit, not valid HTTP,
    /// compression that does not decode. (A connection that closed or stalled may heal; these do not.)
    static func isRefusal(_ error: any Error) -> Bool {
        switch error {
        case let failure as Failure: return failure == .bodyTooLarge
        case is NIOTooManyBytesError, is NIOHTTPDecompression.DecompressionError: return true
        case let error as HTTPParserError: return error != .invalidEOFState
        case let error as HTTPClientError: return error == .invalidURL || error == .emptyHost || error == .emptyScheme
        default: return false
        }
    }

    /// Whether no connection was made, so none of the request reached the server.
    static func isConnectFailure(_ error: any Error) -> Bool {
        switch error {
        case is NIOConnectionError: return true
        // (a handshake that failed sent nothing; a TLS error later — an unclean shutdown after the answer's head, an
        // alert mid-body — may follow a write the service applied)
        case let error as NIOSSLError:
            if case .handshakeFailed = error { return true }
            return false
        case let error as HTTPClientError: return error == .connectTimeout || error == .getConnectionFromPoolTimeout
        case let error as IOError: return error.errnoCode == ECONNREFUSED || error.errnoCode == ENETUNREACH
        default: return false
        }
    }

    /// Whether the exchange ran out of its time (the whole, or the wait for the next bytes).
    static func isTimeout(_ error: any Error) -> Bool {
        guard let error = error as? HTTPClientError else { return false }
        return error == .readTimeout || error == .deadlineExceeded
    }

    /// `30 s`, `2.5 s`.
    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    /// A short human reason for a failed exchange, for `ODataError.message` (never a header value).
    static func sentence(for error: any Error, maxBodyBytes: Int) -> String {
        switch error {
        case let failure as Failure:
            switch failure {
            case .bodyTooLarge: return "the answer is larger than \(size(maxBodyBytes)), the limit for one answer"
            case .cutShort: return "the connection closed before the whole answer arrived"
            }
        case is NIOTooManyBytesError:
            return "the answer is larger than \(size(maxBodyBytes)), the limit for one answer"
        case let error as NIOHTTPDecompression.DecompressionError:
            if error == .limit { return "the answer is larger than \(size(maxBodyBytes)), the limit for one answer" }
            return "the compressed answer could not be decompressed"
        case let error as HTTPClientError:
            return sentence(for: error)
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty {
                return "the host name could not be resolved"
            }
            if let first = error.connectionErrors.first {
                return sentence(for: first.error, maxBodyBytes: maxBodyBytes)
            }
            return "the connection could not be made"
        case let error as IOError:
            return sentence(errno: error.errnoCode)
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return "connecting to the server timed out"
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed: return "the connection was lost"
            default: return "the connection failed (\(error))"
            }
        case let error as HTTPParserError:
            if error == .invalidEOFState { return "the connection closed before the whole answer arrived" }
            return "the server's answer is not valid HTTP"
        case let error as NIOSSLError:
            if case .handshakeFailed = error { return sentence(tls: String(describing: error)) }
            if case .uncleanShutdown = error { return "the connection was lost (TLS closed uncleanly)" }
            return "the TLS connection failed"
        case let error as BoringSSLError:
            return sentence(tls: String(describing: error))
        default:
            return "the exchange failed (\(String(describing: error)))"
        }
    }

    /// A TLS handshake that failed, by what BoringSSL said: an untrusted service, or a service that wants a client
    /// certificate (or refused the one given).
    static func sentence(tls reason: String) -> String {
        let text = reason.uppercased()
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("UNABLE_TO_GET_ISSUER") {
            return "the TLS handshake failed: the service's certificate is not signed by a CA this client trusts "
                + "(name a private CA with --ca-file)"
        }
        if text.contains("CERTIFICATE_REQUIRED") || text.contains("HANDSHAKE_FAILURE")
            || text.contains("UNKNOWN_CA") || text.contains("BAD_CERTIFICATE")
        {
            return "the TLS handshake failed: the service wants a client certificate it trusts (--client-cert and "
                + "--client-key)"
        }
        if text.contains("HOSTNAME") || text.contains("HOST NAME") {
            return "the TLS handshake failed: the service's certificate is for another host name"
        }
        return "the TLS handshake failed"
    }

    /// Through a proxy, what went wrong reaching it or opening the tunnel to `target`'s host, naming the proxy
    /// (never its credentials); nil when the failure came after, from the service.
    static func sentence(for error: any Error, proxy: ProxyServer, target: URL) -> String? {
        switch error {
        case let error as HTTPClientError:
            let host = target.host ?? "the service"
            let port = target.port ?? (target.scheme?.lowercased() == "https" ? 443 : 80)
            switch error {
            case .proxyAuthenticationRequired:
                if proxy.hasCredentials { return "the proxy \(proxy) did not accept its credentials (HTTP 407)" }
                return "the proxy \(proxy) asks for credentials (HTTP 407): give them as http://user:password@host:port"
            case .invalidProxyResponse:
                let hint = port == 443 ? "" : " (many proxies tunnel only to port 443)"
                return "the proxy \(proxy) refused to open a tunnel to \(host):\(port)\(hint)"
            case .httpProxyHandshakeTimeout:
                return "the proxy \(proxy) did not open a tunnel to \(host):\(port) in time"
            case .connectTimeout:
                return "connecting to the proxy \(proxy) timed out"
            default:
                return nil
            }
        case is NIOConnectionError:
            return "the proxy \(proxy) could not be reached: " + sentence(for: error, maxBodyBytes: 0)
        case let error as ChannelError:
            guard case .connectTimeout = error else { return nil }
            return "connecting to the proxy \(proxy) timed out"
        default:
            return nil
        }
    }

    static func sentence(for error: HTTPClientError) -> String {
        switch error {
        case .readTimeout, .writeTimeout, .deadlineExceeded: return "the request timed out"
        case .connectTimeout, .getConnectionFromPoolTimeout: return "connecting to the server timed out"
        case .remoteConnectionClosed: return "the server closed the connection without answering"
        case .invalidURL, .emptyHost, .emptyScheme: return "the URL is not valid"
        case .bodyLengthMismatch: return "the connection closed before the whole answer arrived"
        case .cancelled: return "the request was cancelled"
        case .alreadyShutdown: return "the HTTP client was already shut down"
        default: return "the exchange failed (\(error))"
        }
    }

    static func sentence(errno code: Int32) -> String {
        switch code {
        case ECONNREFUSED: return "the connection was refused"
        case ECONNRESET: return "the connection was reset"
        case EPIPE, ECONNABORTED: return "the connection was lost"
        case ETIMEDOUT: return "connecting to the server timed out"
        case ENETUNREACH, ENETDOWN: return "there is no network connection"
        case EHOSTUNREACH, EHOSTDOWN: return "the host cannot be reached"
        default: return "the connection failed (\(String(cString: strerror(code))))"
        }
    }

    /// `256 MiB`, `64 KiB`, `1000 bytes`.
    static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}
