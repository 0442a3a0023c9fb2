import Foundation

/// An exclusive `flock` on a file beside the cache, held while a cache is opened and its schema made or migrated.
///
/// Two browsers started at the same moment on a new cache would otherwise both find no tables and both create them:
/// GRDB's migrator reads which migrations are applied outside the transaction that applies each one, so the second
/// failed with "table outbox already exists". The second now waits here, then finds the schema made. The lock goes
/// with the descriptor, so a process that dies while holding it releases it. (Not SQLite's own file: closing any
/// descriptor of a database file drops the process's POSIX locks on it, which SQLite relies on.)
enum CacheFileLock {
    /// The lock file of the cache at `path`.
    static func path(for cachePath: String) -> String { cachePath + ".lock" }

    static func holding<T>(_ lockPath: String, _ body: () throws -> T) throws -> T {
        let descriptor = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: lockPath])
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw CocoaError(.fileLocking, userInfo: [NSFilePathErrorKey: lockPath]) }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
