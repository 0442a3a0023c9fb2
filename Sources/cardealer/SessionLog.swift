import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The session log: `$XDG_STATE_HOME/cardealer/cardealer.log` (default `~/.local/state/cardealer/`), mode 0600.
///
/// While the browser owns the terminal, standard error is redirected here too, so that nothing a
/// library prints (runtime warnings) can reach the screen. Credentials are never written.
enum SessionLog {
    /// The log file's path.
    static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base: String
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else {
            base = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        }
        return base + "/cardealer/cardealer.log"
    }

    /// Opens the log for appending and points standard error at it. Returns false (and leaves
    /// standard error alone) when the file cannot be opened.
    @discardableResult
    static func captureStandardError() -> Bool {
        if savedStandardError < 0 { savedStandardError = dup(STDERR_FILENO) }
        let file = path()
        let directory = (file as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let descriptor = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        fchmod(descriptor, 0o600)
        let redirected = dup2(descriptor, STDERR_FILENO) >= 0
        close(descriptor)
        return redirected
    }

    /// The terminal's standard error while the log stands in for it; -1 when not captured.
    nonisolated(unsafe) private static var savedStandardError: Int32 = -1

    /// Gives standard error back to the terminal (after the UI closes without exiting, so that the reason for a
    /// failed start reaches the user).
    static func releaseStandardError() {
        guard savedStandardError >= 0 else { return }
        dup2(savedStandardError, STDERR_FILENO)
        close(savedStandardError)
        savedStandardError = -1
    }

    /// Appends one timestamped line (to standard error, which is the log while the UI runs).
    static func write(_ message: String) {
        let stamp = ISO8601DateFormatter().string(from: Date())
        let line = "\(stamp) [\(getpid())] \(message)\n"
        // write(2) on the descriptor: unbuffered, and no shared FILE* to guard.
        _ = line.withCString { Glibc.write(STDERR_FILENO, $0, strlen($0)) }
    }
}
