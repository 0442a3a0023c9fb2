import Foundation

/// How to sign in to one service with OAuth 2.0: where its tokens come from and as whom.
///
/// The client secret is held for the token requests only: it is in no description, log line or file this
/// client writes.
public struct SignInSettings: Sendable, Hashable, CustomStringConvertible {
    /// The grants this client can carry out.
    public enum Grant: String, Sendable, Hashable, CaseIterable {
        /// RFC 6749 §4.4: the client signs in as itself with its id and secret.
        case clientCredentials = "client-credentials"
        /// RFC 8628: the user signs in on another device (a phone, a laptop's web browser) with a code this
        /// client shows; what works over SSH, and what Microsoft's identity platform recommends for command lines.
        case device
        /// RFC 6749 §4.1 with PKCE: the user signs in in a web browser on this machine, which comes back to a
        /// listener on 127.0.0.1 (`cardealer login` only: nothing opens a browser mid-session).
        case code
    }

    /// The service root the tokens are for (with one trailing slash): the token store's key.
    public var serviceRoot: String
    public var tokenURL: String
    /// The device authorization endpoint (the device grant's).
    public var deviceURL: String?
    /// The authorization endpoint (the code grant's).
    public var authorizeURL: String?
    public var clientID: String
    public var grant: Grant
    public var scope: String?
    /// The client's secret (from `CARDEALER_CLIENT_SECRET` or a file); nil for a public client.
    public var clientSecret: String?
    /// Whether credentials may go over plain `http://` to a host that is not loopback.
    public var allowsPlainHTTP: Bool
    /// The client authenticates with its TLS certificate (`--client-cert`, RFC 8705 `tls_client_auth`) and no
    /// secret: its id goes in the form, the certificate in the handshake.
    public var authenticatesWithCertificate = false

    public init(
        serviceRoot: String, tokenURL: String, deviceURL: String? = nil, authorizeURL: String? = nil,
        clientID: String, grant: Grant = .clientCredentials, scope: String? = nil, clientSecret: String? = nil,
        allowsPlainHTTP: Bool = false
    ) {
        self.deviceURL = deviceURL
        self.authorizeURL = authorizeURL
        self.serviceRoot = serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/"
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.grant = grant
        self.scope = scope
        self.clientSecret = clientSecret
        self.allowsPlainHTTP = allowsPlainHTTP
    }

    public var description: String {
        "\(grant.rawValue) sign-in as client \(clientID) at \(tokenURL)"
    }

    /// Why these settings cannot be used, or nil: a token URL that is not http(s), or plain http to a host that is
    /// not loopback without ``allowsPlainHTTP``, or a grant that needs a secret without one.
    public func problem() -> String? {
        if let reason = Self.plainHTTPProblem(tokenURL, what: "the token endpoint", allowed: allowsPlainHTTP) {
            return reason
        }
        if let reason = Self.plainHTTPProblem(serviceRoot, what: "the service", allowed: allowsPlainHTTP) {
            return reason
        }
        if clientID.isEmpty { return "the client id is empty" }
        // The endpoint the grant needs besides the token endpoint, if any: named, and credentials' fit.
        let needed: (url: String?, what: String, option: String)? =
            switch grant {
            case .code: (authorizeURL, "the authorization endpoint", "--authorize-url")
            case .device: (deviceURL, "the device authorization endpoint", "--device-url")
            case .clientCredentials: nil
            }
        if let needed {
            guard let url = needed.url else {
                return "the \(grant.rawValue) grant needs \(needed.what): \(needed.option) URL, or --issuer URL whose "
                    + "discovery document names it"
            }
            if let reason = Self.plainHTTPProblem(url, what: needed.what, allowed: allowsPlainHTTP) { return reason }
        }
        if grant == .clientCredentials, (clientSecret ?? "").isEmpty, !authenticatesWithCertificate {
            return "client credentials need the client's secret (CARDEALER_CLIENT_SECRET or --client-secret-file "
                + "FILE) or its certificate (--client-cert and --client-key)"
        }
        return nil
    }

    /// Why credentials must not go to `url`, or nil: not http(s), or plain http to a host that is not loopback
    /// unless `allowed`.
    public static func plainHTTPProblem(_ url: String, what: String, allowed: Bool) -> String? {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), let host = parsed.host,
            scheme == "http" || scheme == "https"
        else { return "\(what) (\(url)) is not an http or https URL" }
        if scheme == "http", !allowed, !isLoopback(host) {
            return "\(what) (\(url)) is plain http on another host: credentials would cross the network "
                + "unencrypted; use https, or --allow-plain-http if that is really meant"
        }
        return nil
    }

    /// A loopback address (127.0.0.0/8, ::1) or `localhost`; a name such as `127.evil.example` is not.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return IPAddress(bare)?.isLoopback ?? (bare == "localhost")
    }
}
