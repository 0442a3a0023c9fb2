import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A log file only its owner reads: opened for appending, created 0600 in a 0700 directory, each line written with
/// one `write(2)` so that lines from different threads and processes never interleave. The browser's log
/// (`AppLog`) and the SSH gateway's (`GatewayLog`) are both one of these; what goes into a line is theirs.
public final class LogFile: Sendable {
    /// The open file.
    public let descriptor: Int32
    /// The file's path.
    public let path: String

    /// Opens (creating it 0600, and its directory 0700) the file at `path` for appending.
    public init(path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Unopened(path: path, reason: String(cString: strerror(errno))) }
        // (a file made by an older version, or under another umask, is made private too)
        fchmod(descriptor, 0o600)
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Appends `line` (which ends with its own line break) in one write.
    public func append(_ line: String) {
        Self.write(line, to: descriptor)
    }

    /// Writes `line` to `descriptor` in one `write(2)`: unbuffered, no shared `FILE*` to guard.
    public static func write(_ line: String, to descriptor: Int32) {
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBufferPointer { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }

    /// The file could not be opened.
    public struct Unopened: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "Could not open the log \(path): \(reason)." }
    }
}
