import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The gateway's log: one timestamped line per event, appended to a 0600 file and, when asked, echoed to standard
/// error. Secrets are never passed in; what a client sent (user names, versions) is sanitised before it is.
public final class GatewayLog: Sendable {
    private let descriptor: Int32
    private let echo: Bool
    /// The file's path.
    public let path: String

    /// Opens (creating 0600, in a 0700 directory) the file at `path` for appending.
    public init(path: String, echoToStandardError: Bool) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw HostKeyError("Could not open the log \(path): \(String(cString: strerror(errno))).")
        }
        self.descriptor = descriptor
        self.echo = echoToStandardError
        self.path = path
    }

    deinit { close(descriptor) }

    /// Appends one line: one write(2), so that lines from different threads never interleave.
    public func write(_ message: String) {
        let stamp = Date().formatted(.iso8601)
        let line = Array("\(stamp) \(message)\n".utf8)
        _ = Glibc.write(descriptor, line, line.count)
        if echo { _ = Glibc.write(STDERR_FILENO, line, line.count) }
    }
}
