import Foundation

/// Where the credentials for a service come from: the environment first, else a private file.
///
/// * `CARDEALER_BEARER_TOKEN`, or `CARDEALER_USER` with `CARDEALER_PASSWORD` (basic auth);
/// * else `CARDEALER_CREDENTIALS` (a path), or `$XDG_CONFIG_HOME/cardealer/credentials`
///   (`~/.config/cardealer/credentials`), when it exists: lines `token = …`, or `user = …` and
///   `password = …`; `#` starts a comment. The file must be readable by its owner only (mode 0600 or
///   stricter): any other mode is refused with an error that says how to fix it.
///
/// Credentials never go into URLs, the cache, the request log or any message.
public struct Credentials: Sendable, Hashable {
    /// The `Authorization` header value, nil without credentials.
    public var authorization: String?
    /// The user name, for the cache's identity (`anonymous` without one).
    public var user: String?

    public init(authorization: String? = nil, user: String? = nil) {
        self.authorization = authorization
        self.user = user
    }

    /// A credentials file that cannot be used, in a sentence.
    public struct FileError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// Reads the environment, then the credentials file.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Credentials {
        if let token = environment["CARDEALER_BEARER_TOKEN"], !token.isEmpty {
            return Credentials(authorization: "Bearer " + token, user: environment["CARDEALER_USER"])
        }
        if let user = environment["CARDEALER_USER"], !user.isEmpty {
            return Credentials(authorization: basic(user, environment["CARDEALER_PASSWORD"] ?? ""), user: user)
        }
        let path = filePath(environment: environment)
        guard FileManager.default.fileExists(atPath: path) else { return Credentials() }
        return try read(path: path)
    }

    /// `CARDEALER_CREDENTIALS`, else the XDG config location.
    public static func filePath(environment: [String: String]) -> String {
        if let path = environment["CARDEALER_CREDENTIALS"], !path.isEmpty { return path }
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/cardealer/credentials" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.config/cardealer/credentials"
    }

    /// Reads a credentials file after checking that only its owner can read it.
    public static func read(path: String) throws -> Credentials {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileError(description: "Cannot read the credentials file \(path).") }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw FileError(
                description: "The credentials file \(path) is readable by others (mode "
                    + String(mode, radix: 8) + "); run `chmod 600 \(path)` and try again.")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw FileError(description: "Cannot read the credentials file \(path).")
        }
        var values: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            let parts = trimmed.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else {
                throw FileError(description: "The credentials file \(path) has a line that is not `name = value`.")
            }
            values[parts[0].trimmingCharacters(in: .whitespaces).lowercased()] = parts[1].trimmingCharacters(
                in: .whitespaces)
        }
        if let token = values["token"], !token.isEmpty {
            return Credentials(authorization: "Bearer " + token, user: values["user"])
        }
        if let user = values["user"], !user.isEmpty {
            return Credentials(authorization: basic(user, values["password"] ?? ""), user: user)
        }
        return Credentials()
    }

    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data((user + ":" + password).utf8).base64EncodedString()
    }
}
