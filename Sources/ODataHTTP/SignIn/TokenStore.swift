import Foundation

/// Where tokens are kept between runs: one JSON file readable by its owner only (mode 0600, in a 0700
/// directory), `--token-file` or `$XDG_STATE_HOME/cardealer/tokens.json` (`~/.local/state/cardealer/tokens.json`).
///
/// Entries are keyed by service root and client id. Tokens are never written anywhere else: not the cache, the
/// logs, the request log or an export. A file others can read is refused with a sentence that says how to fix it.
/// Writes replace the file whole (a new file renamed over the old), so a reader never sees half of one.
public struct TokenStore: Sendable {
    public let path: String

    /// One stored sign-in.
    public struct Entry: Sendable, Hashable, Codable {
        public var serviceRoot: String
        public var clientID: String
        public var tokenURL: String
        public var grant: String
        public var token: IssuedToken
    }

    struct File: Codable {
        var version = 1
        var entries: [Entry] = []
    }

    public init(path: String) { self.path = path }

    /// `--token-file` when given, else the XDG state location.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/cardealer/tokens.json" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/cardealer/tokens.json"
    }

    /// Every stored entry; none when there is no file.
    public func entries() throws(SignInError) -> [Entry] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return [] }
            throw SignInError("cannot read the token file \(path)", isFinal: true)
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw SignInError(
                "the token file \(path) is readable by others (mode \(String(mode, radix: 8))); run "
                    + "`chmod 600 \(path)` and sign in again", isFinal: true)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SignInError("cannot read the token file \(path)", isFinal: true)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let file = try? decoder.decode(File.self, from: data) else {
            throw SignInError(
                "the token file \(path) is not one this program wrote; remove it and sign in again", isFinal: true)
        }
        return file.entries
    }

    /// The entry for a service and client, if stored.
    public func entry(serviceRoot: String, clientID: String) throws(SignInError) -> Entry? {
        try entries().first { $0.serviceRoot == serviceRoot && $0.clientID == clientID }
    }

    /// The entry these settings may use: the same client, token endpoint and grant (a refresh token goes to no
    /// other server), for the settings' service root or one it lies under (`ROOT/EntitySet` uses `ROOT`'s).
    public func entry(for settings: SignInSettings) throws(SignInError) -> Entry? {
        try entries().filter {
            $0.clientID == settings.clientID && $0.tokenURL == settings.tokenURL
                && $0.grant == settings.grant.rawValue && settings.serviceRoot.hasPrefix($0.serviceRoot)
        }.max { $0.serviceRoot.count < $1.serviceRoot.count }
    }

    /// Stores `entry` in place of the one for its service and client.
    public func save(_ entry: Entry) throws(SignInError) {
        var kept = try entries().filter { !($0.serviceRoot == entry.serviceRoot && $0.clientID == entry.clientID) }
        kept.append(entry)
        try write(kept)
    }

    /// Removes every entry for `serviceRoot`; returns how many there were.
    @discardableResult
    public func remove(serviceRoot: String) throws(SignInError) -> Int {
        let all = try entries()
        let kept = all.filter { $0.serviceRoot != serviceRoot }
        if kept.count != all.count { try write(kept) }
        return all.count - kept.count
    }

    func write(_ entries: [Entry]) throws(SignInError) {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SignInError("cannot make the directory \(directory) for the token file", isFinal: true)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        guard let data = try? encoder.encode(File(entries: entries)) else {
            throw SignInError("cannot write the token file \(path)", isFinal: true)
        }
        let temporary = path + ".\(getpid()).new"
        // Made 0600 from the first byte: the tokens are never readable by others, not even for a moment.
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SignInError("cannot write the token file \(path)", isFinal: true) }
        fchmod(descriptor, 0o600)
        let written = data.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == data.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw SignInError("cannot write the token file \(path)", isFinal: true)
        }
    }
}
