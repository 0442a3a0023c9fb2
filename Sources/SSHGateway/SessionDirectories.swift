import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The private directory each session's browser gets (home, cache, config): `cardealer-ssh-<server>-<session>-XXXXXX`
/// in the temporary directory, where `<server>` names a lock file, `cardealer-ssh-<server>.lock`, that the server
/// holds (`flock`) for as long as it runs. A session's directory goes when it ends; a server killed outright
/// (SIGKILL, a power cut) leaves its sessions' behind, with its lock file no longer held, and the next server to
/// start removes them. A lock, not a process id: a temporary directory shared across containers (other process
/// id spaces) or a restarted container whose server is process 1 again would make a process id say the wrong thing.
public enum SessionDirectories {
    static let prefix = "cardealer-ssh-"

    /// A server's hold on its sessions' directories: the lock, held until the process ends.
    public struct Claim: Sendable {
        /// The name part its sessions' directories carry.
        public let token: String
        /// The lock file's descriptor; never closed (the process's end releases the lock).
        let descriptor: Int32
    }

    /// Takes a new claim in `directory`: the lock file is made under another name, locked, then renamed into
    /// place, so that no other server ever sees it unheld.
    public static func claim(in directory: String) throws -> Claim {
        let token = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let final = (directory as NSString).appendingPathComponent(prefix + token + ".lock")
        let making = final + "ing"
        let descriptor = open(making, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, rename(making, final) == 0 else {
            let code = errno
            close(descriptor)
            unlink(making)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        return Claim(token: token, descriptor: descriptor)
    }

    /// The `mkdtemp` template for session `number` of the server holding `claim`.
    public static func template(in directory: String, claim: Claim, number: Int) -> String {
        (directory as NSString).appendingPathComponent("\(prefix)\(claim.token)-\(number)-XXXXXX")
    }

    /// Removes, in `directory`, the session directories of servers that are gone — those whose lock file this
    /// user owns and nobody holds — and those lock files; returns the directories' names. Directories of a live
    /// server, of another user, links, and names of any other shape are left alone.
    @discardableResult
    public static func removeStale(in directory: String) -> [String] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix(prefix) && name.hasSuffix(".lock") {
            let token = name.dropFirst(prefix.count).dropLast(".lock".count)
            guard !token.isEmpty, token.allSatisfy(\.isHexDigit) else { continue }
            let lockPath = (directory as NSString).appendingPathComponent(name)
            guard isOurs(lockPath, kind: S_IFREG) else { continue }
            let descriptor = open(lockPath, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            // Held: its server runs. Taken: its server is gone, and no other server can take it meanwhile.
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }
            let sessions = names.filter { $0.hasPrefix(prefix + token + "-") }
            for session in sessions.sorted() {
                let path = (directory as NSString).appendingPathComponent(session)
                guard isOurs(path, kind: S_IFDIR) else { continue }
                if (try? manager.removeItem(atPath: path)) != nil { removed.append(session) }
            }
            unlink(lockPath)
        }
        return removed
    }

    /// A file of `kind` (not a link to one) that belongs to this user.
    static func isOurs(_ path: String, kind: mode_t) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == kind && status.st_uid == getuid()
    }
}
