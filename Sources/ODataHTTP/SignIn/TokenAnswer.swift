import Foundation
import ODataCore

/// A token an authorization server issued, as this client keeps it.
///
/// Its ``description`` names who it is for and when it ends, never the token itself.
public struct IssuedToken: Sendable, Hashable, Codable, CustomStringConvertible {
    public var accessToken: String
    public var refreshToken: String?
    /// When the access token ends; nil when the server did not say (then it is renewed on a `401`).
    public var expiresAt: Date?
    /// When it was asked for (its lifetime is `expiresAt - issuedAt`).
    public var issuedAt: Date?
    /// Who the token is for, when an `id_token` or a JWT access token names them.
    public var user: String?
    public var scope: String?

    public init(
        accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil, user: String? = nil,
        scope: String? = nil, issuedAt: Date? = nil
    ) {
        self.issuedAt = issuedAt
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.user = user
        self.scope = scope
    }

    public var description: String {
        "token for \(user ?? "an unnamed user")" + (expiresAt.map { " ending \($0)" } ?? "")
    }
}

/// A sign-in that did not work, in a sentence a person can act on. Never holds a secret.
public struct SignInError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    /// The server said no for good (`invalid_grant`, `invalid_client`, `access_denied`, …): asking again with the
    /// same credentials gets the same, so nothing is asked again until the user signs in anew.
    public var isFinal: Bool
    /// The server's error code (`authorization_pending`, `invalid_grant`, …), when it sent one.
    public var code: String?

    public init(_ description: String, isFinal: Bool, code: String? = nil) {
        self.description = description
        self.isFinal = isFinal
        self.code = code
    }
}

/// What the device authorization endpoint (RFC 8628 §3.2) gave: the code the user enters, where, and the code
/// this client polls with. Its ``sentence`` is what the user is shown (a terminal line, sanitised).
public struct DevicePrompt: Sendable, Hashable {
    public var deviceCode: String
    public var userCode: String
    public var verificationURI: String
    public var expiresAt: Date
    /// Seconds between polls.
    public var interval: Double

    /// What to do, in one line.
    public var sentence: String { "open \(verificationURI) and enter the code \(userCode)" }

    /// The prompt in a device authorization answer, or why there is none.
    public static func read(
        status: Int, contentType: String?, body: [UInt8], now: Date = Date()
    ) -> Result<
        DevicePrompt, SignInError
    > {
        guard (200..<300).contains(status) else {
            if case .failure(let error) = TokenAnswer.read(
                status: status, contentType: contentType, body: body, now: now)
            {
                return .failure(
                    SignInError(
                        error.description.replacingOccurrences(
                            of: "the token endpoint", with: "the device authorization endpoint"),
                        isFinal: error.isFinal, code: error.code))
            }
            return .failure(SignInError("the device authorization endpoint answered \(status)", isFinal: false))
        }
        guard let json = try? JSONReader().read(body), case .string(let device)? = json["device_code"],
            case .string(let user)? = json["user_code"], !device.isEmpty, !user.isEmpty
        else {
            return .failure(
                SignInError(
                    "the device authorization endpoint's answer holds no device_code and user_code"
                        + TokenAnswer.shape(contentType), isFinal: false))
        }
        // (Google's endpoint says verification_url)
        guard case .string(let uri)? = json["verification_uri"] ?? json["verification_url"],
            let url = URL(string: uri), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil
        else {
            return .failure(
                SignInError("the device authorization endpoint names no http(s) verification_uri", isFinal: false))
        }
        func seconds(_ key: String) -> Double? {
            switch json[key] {
            case .number(let text)?: Double(text)
            case .string(let text)?: Double(text)
            default: nil
            }
        }
        let lifetime = min(max(seconds("expires_in") ?? 600, 1), 1800)
        let interval = min(max(seconds("interval") ?? 5, 1), 60)
        return .success(
            DevicePrompt(
                deviceCode: device, userCode: TokenAnswer.quote(user), verificationURI: TokenAnswer.quote(uri),
                expiresAt: now.addingTimeInterval(lifetime), interval: interval))
    }
}

/// Reads a token endpoint's answer (RFC 6749 §5): a token, or the server's error as a sentence.
public enum TokenAnswer {
    /// The longest text of a server's taken into a sentence.
    static let quoteLimit = 200

    /// The token in a `200` answer, or why there is none.
    public static func read(
        status: Int, contentType: String?, body: [UInt8], now: Date = Date()
    ) -> Result<IssuedToken, SignInError> {
        let json = try? JSONReader().read(body)
        guard (200..<300).contains(status) else {
            if let json, case .string(let code)? = json["error"] {
                var sentence = "the token endpoint refused: " + quote(code)
                if case .string(let detail)? = json["error_description"], !detail.isEmpty {
                    sentence += " (" + quote(detail) + ")"
                }
                return .failure(SignInError(sentence, isFinal: finalErrors.contains(code), code: code))
            }
            return .failure(SignInError("the token endpoint answered \(status)" + shape(contentType), isFinal: false))
        }
        guard let json, case .object = json else {
            return .failure(
                SignInError(
                    "the token endpoint answered \(status) with no token" + shape(contentType), isFinal: false))
        }
        guard case .string(let access)? = json["access_token"], !access.isEmpty else {
            return .failure(SignInError("the token endpoint's answer holds no access_token", isFinal: false))
        }
        if case .string(let type)? = json["token_type"], type.lowercased() != "bearer" {
            return .failure(
                SignInError(
                    "the token endpoint issued a \(quote(type)) token; only bearer tokens can be sent", isFinal: true))
        }
        var token = IssuedToken(accessToken: access, issuedAt: now)
        if case .string(let refresh)? = json["refresh_token"], !refresh.isEmpty { token.refreshToken = refresh }
        if case .string(let scope)? = json["scope"] { token.scope = scope }
        // A number, or (some servers) a number in a string; none, zero or negative: unknown, renewed on a 401.
        let seconds: Double? =
            switch json["expires_in"] {
            case .number(let text)?: Double(text)
            case .string(let text)?: Double(text)
            default: nil
            }
        if let seconds, seconds.isFinite, seconds > 0 {
            token.expiresAt = now.addingTimeInterval(min(seconds, 10 * 365 * 86_400))
        }
        var claims: [String: JSONValue] = [:]
        if case .string(let idToken)? = json["id_token"] { claims = JWTClaims.read(idToken) }
        if claims.isEmpty { claims = JWTClaims.read(access) }
        token.user = JWTClaims.user(in: claims)
        return .success(token)
    }

    /// RFC 6749 §5.2 and RFC 8628 §3.5 codes that the same request will always get.
    static let finalErrors: Set<String> = [
        "invalid_grant", "invalid_client", "unauthorized_client", "unsupported_grant_type", "invalid_scope",
        "access_denied", "expired_token",
    ]

    /// What an answer that is not a token was, in a few words.
    static func shape(_ contentType: String?) -> String {
        let type = (contentType ?? "").lowercased()
        if type.contains("html") { return " (an HTML page, not a token)" }
        return ""
    }

    /// A server's text made safe for a terminal line and a log: control characters dropped, at most
    /// ``quoteLimit`` characters.
    public static func quote(_ text: String) -> String {
        let cleaned = clean(text)
        return cleaned.count > quoteLimit ? String(cleaned.prefix(quoteLimit)) + "…" : cleaned
    }

    /// `text` without control characters or bidirectional overrides, whole (a URL to copy must stay whole).
    public static func clean(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.filter {
                    !CharacterSet.controlCharacters.contains($0) && !(0x202A...0x202E).contains($0.value)
                        && !(0x2066...0x2069).contains($0.value)
                }))
    }
}

/// The claims of a JSON Web Token, read only to name its user; nothing here checks a signature, and nothing
/// is trusted for more than a name on the screen and the cache's identity.
enum JWTClaims {
    /// The payload's claims; empty for anything that is not a JWT.
    static func read(_ token: String) -> [String: JSONValue] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].count <= 16_384 else { return [:] }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let json = try? JSONReader().read(Array(data)),
            case .object(let object) = json
        else { return [:] }
        var claims: [String: JSONValue] = [:]
        for member in object.members { claims[member.key] = member.value }
        return claims
    }

    /// The most readable name the claims give: `preferred_username`, `upn`, `email`, then `sub`.
    static func user(in claims: [String: JSONValue]) -> String? {
        for key in ["preferred_username", "upn", "email", "user_name", "sub"] {
            if case .string(let name)? = claims[key] {
                let quoted = TokenAnswer.quote(name)
                if !quoted.isEmpty { return quoted }
            }
        }
        return nil
    }
}
