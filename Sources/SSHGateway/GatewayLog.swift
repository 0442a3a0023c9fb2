import Foundation
import LogFile

#if canImport(Glibc)
import Glibc
#endif

/// The gateway's log: one timestamped line per event, appended to a 0600 file and, when asked, echoed to standard
/// error. Secrets are never passed in; what a client sent (user names, versions) is sanitised before it is.
public final class GatewayLog: Sendable {
    private let file: LogFile
    private let echo: Bool
    /// The file's path.
    public var path: String { file.path }

    /// Opens (creating 0600, in a 0700 directory) the file at `path` for appending.
    public init(path: String, echoToStandardError: Bool) throws {
        do {
            file = try LogFile(path: path)
        } catch let error as LogFile.Unopened {
            throw HostKeyError(error.description)
        }
        self.echo = echoToStandardError
    }

    /// Appends one line: one write(2), so that lines from different threads never interleave.
    public func write(_ message: String) {
        let line = "\(Date().formatted(.iso8601)) \(message)\n"
        file.append(line)
        if echo { LogFile.write(line, to: STDERR_FILENO) }
    }
}
