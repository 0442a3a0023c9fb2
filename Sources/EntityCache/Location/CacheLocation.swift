import Foundation

/// Where the cache of one (service, user) lives: `$XDG_CACHE_HOME/cardealer/` or `~/.cache/cardealer/`.
///
/// The file name comes from a **service identity** — normally the service root
/// URL, but a stable name for services whose URL changes (the built-in demo on an
/// ephemeral port uses `builtin-demo`) — and the user, so one person's cache is
/// never shown to another and switching servers never mixes data (seed 004).
public struct CacheLocation: Sendable, Hashable {
    public let serviceIdentity: String
    public let user: String
    public let directory: String

    /// - Parameters:
    ///   - serviceIdentity: a service root URL, or a stable name such as `builtin-demo`.
    ///   - user: the account the data is fetched as (`anonymous` without credentials).
    ///   - environment: where `XDG_CACHE_HOME` and `HOME` are read (injectable for tests).
    public init(
        serviceIdentity: String, user: String = "anonymous",
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.serviceIdentity = Self.normalise(serviceIdentity)
        self.user = user.isEmpty ? "anonymous" : user
        self.directory = Self.baseDirectory(environment: environment)
    }

    /// The cache directory of this program.
    public static func baseDirectory(environment: [String: String]) -> String {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/cardealer" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.cache/cardealer"
    }

    /// `scheme://host:port/path/` lower-cased where case does not matter, with one trailing slash.
    static func normalise(_ identity: String) -> String {
        guard identity.contains("://"), var components = URLComponents(string: identity) else { return identity }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        if !components.path.hasSuffix("/") { components.path += "/" }
        return components.string ?? identity
    }

    /// A readable, collision-safe file name: a slug of the identity and user plus a hash of both.
    public var fileName: String {
        let readable = (serviceIdentity + "-" + user).map { character -> Character in
            character.isASCII && (character.isLetter || character.isNumber) ? character : "_"
        }
        let slug = String(
            String(readable).split(separator: "_", omittingEmptySubsequences: true)
                .joined(separator: "_").prefix(60))
        return slug + "-" + Self.fnv1a(serviceIdentity + "\u{0}" + user) + ".sqlite"
    }

    /// The database file's full path.
    public var path: String { directory + "/" + fileName }

    /// FNV-1a 64-bit, hex: stable across runs and platforms (unlike `Hasher`).
    static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
