import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The private directory each session's browser gets (home, cache, config), named after the server that made it:
/// `cardealer-ssh-<server pid>-<session>-XXXXXX` in the temporary directory. A session's directory goes when it
/// ends; a server killed outright (SIGKILL, a power cut) leaves its sessions' behind, and the next server to start
/// removes those whose server is gone.
public enum SessionDirectories {
    static let prefix = "cardealer-ssh-"

    /// The `mkdtemp` template for session `number` of the server with process id `server`.
    public static func template(in directory: String, server: Int32, number: Int) -> String {
        (directory as NSString).appendingPathComponent("\(prefix)\(server)-\(number)-XXXXXX")
    }

    /// Removes the session directories in `directory` whose server process is gone and that belong to this user;
    /// returns their names. `isAlive` tells whether a process id is running (`kill(pid, 0)`).
    @discardableResult
    public static func removeStale(
        in directory: String, isAlive: (Int32) -> Bool = SessionDirectories.processIsAlive
    ) -> [String] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix(prefix) {
            let parts = name.dropFirst(prefix.count).split(separator: "-")
            guard parts.count == 3, let server = Int32(parts[0]), server > 0, Int(parts[1]) != nil,
                !isAlive(server)
            else { continue }
            let path = (directory as NSString).appendingPathComponent(name)
            var status = stat()
            // A directory of ours, not a link: never follow one into somebody else's files.
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid() else {
                continue
            }
            if (try? manager.removeItem(atPath: path)) != nil { removed.append(name) }
        }
        return removed
    }

    /// Whether process `pid` exists (one of another user's counts: its directory is not touched).
    public static func processIsAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
