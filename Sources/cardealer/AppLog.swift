import ArgumentParser
import Foundation
import LogFile
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The app's log: `$XDG_STATE_HOME/cardealer/cardealer.log` (default `~/.local/state/cardealer/`), mode 0600.
///
/// While the browser owns the terminal, standard error is redirected here too, so that nothing a
/// library prints (runtime warnings) can reach the screen. Credentials are never written.
enum AppLog {
    /// How much goes to the log (`--log-level`): each level includes those above it.
    enum Level: String, CaseIterable, Comparable, Sendable {
        case error, warning, info, debug

        static func < (lhs: Level, rhs: Level) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// The level chosen for this run (set once, before anything is logged).
    static var level: Level {
        get { Level.allCases[chosenLevel.load(ordering: .relaxed)] }
        set { chosenLevel.store(Level.allCases.firstIndex(of: newValue) ?? 2, ordering: .relaxed) }
    }
    /// ``level``, by its place in ``Level/allCases`` (info).
    private static let chosenLevel = Atomic(2)

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
        if savedStandardError.load(ordering: .acquiring) < 0 {
            savedStandardError.store(dup(STDERR_FILENO), ordering: .releasing)
        }
        guard let file = try? LogFile(path: path()) else { return false }
        return dup2(file.descriptor, STDERR_FILENO) >= 0
    }

    /// Appends one line straight to the log file (not standard error), for what may log before the terminal is
    /// taken or from another thread: the in-process demo server.
    static func append(_ message: String, level: Level) {
        guard level <= Self.level else { return }
        try? LogFile(path: path()).append(line(message, level: level))
    }

    /// The terminal's standard error while the log stands in for it; -1 when not captured.
    private static let savedStandardError = Atomic<Int32>(-1)

    /// Gives standard error back to the terminal (after the UI closes without exiting, so that the reason for a
    /// failed start reaches the user).
    static func releaseStandardError() {
        let saved = savedStandardError.exchange(-1, ordering: .acquiringAndReleasing)
        guard saved >= 0 else { return }
        dup2(saved, STDERR_FILENO)
        close(saved)
    }

    /// Appends one timestamped line (to standard error, which is the log while the UI runs), unless `level` is
    /// finer than the run's.
    static func write(_ message: String, level: Level = .info) {
        guard level <= Self.level else { return }
        LogFile.write(line(message, level: level), to: STDERR_FILENO)
    }

    /// One line of the log: when, which process, how grave (unless plain information), what.
    private static func line(_ message: String, level: Level) -> String {
        let stamp = ISO8601DateFormatter().string(from: Date())
        return "\(stamp) [\(getpid())] \(level == .info ? "" : level.rawValue + ": ")\(message)\n"
    }
}

/// swift-log into the app's log: the in-process demo server's logs go where the browser's do, at the run's level,
/// never to the screen.
struct AppLogHandler: LogHandler {
    let label: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let level: AppLog.Level =
            switch event.level {
            case .trace, .debug: .debug
            case .info, .notice: .info
            case .warning: .warning
            case .error, .critical: .error
            }
        AppLog.append("\(label): \(event.message)", level: level)
    }
}

extension AppLog.Level: ExpressibleByArgument {}
