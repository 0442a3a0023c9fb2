import Crypto
import EntityCache
import Foundation
import ODataHTTP

/// What a cache belongs to, worked out once for every command that opens or names one.
public enum CacheIdentity {
    /// The built-in demo's service identity: what it is (its size, hostile or not), not its port of the moment.
    public static func demo(people: Int, hostile: Bool) -> String {
        "builtin-demo-\(people)" + (hostile ? "-hostile" : "")
    }

    /// Whose data the cache holds: the user name when there is one; for a bearer token alone, a digest of the
    /// credential (never the secret itself), so two tokens never share a cache; `anonymous` without any.
    public static func user(_ credentials: Credentials) -> String {
        if let user = credentials.user, !user.isEmpty { return user }
        guard let authorization = credentials.authorization else { return "anonymous" }
        let digest = SHA256.hash(data: Data(authorization.utf8))
        return "credential-" + digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// The environment the cache location is read from, with `--cache-directory` (made absolute against the
    /// working directory) in place of `XDG_CACHE_HOME`.
    public static func environment(cacheDirectory: String?) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        if let directory = cacheDirectory, !directory.isEmpty {
            let absolute =
                directory.hasPrefix("/")
                ? directory : FileManager.default.currentDirectoryPath + "/" + directory
            environment["XDG_CACHE_HOME"] = URL(fileURLWithPath: absolute).standardizedFileURL.path
        }
        return environment
    }

    /// The cache file of a service (`identity`: its root, or the demo's name) for a user, under `--cache-directory`
    /// when one was given.
    public static func location(identity: String, user: String, cacheDirectory: String?) -> CacheLocation {
        CacheLocation(serviceIdentity: identity, user: user, environment: environment(cacheDirectory: cacheDirectory))
    }
}
