import Foundation

/// A private tmux server with one detached pane, for driving real programs in a real terminal.
///
/// Each session uses its own socket (`tmux -L`) so tests never touch a user's tmux, and
/// ``kill()`` ends that server only.
public struct TmuxSession: Sendable {
    /// The `tmux` executable, if one is installed.
    public static let executable: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    public let socket: String
    public let target = "test"

    /// Starts `sh` in a detached `columns`×`rows` pane.
    public init(columns: Int = 80, rows: Int = 24) throws {
        socket = "cardealer-terminal-tests-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try run("-f", "/dev/null", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", "-s", target, "sh")
    }

    /// Runs one tmux command on this session's server and returns its stdout.
    @discardableResult
    public func run(_ arguments: String...) throws -> String {
        try run(arguments)
    }

    /// Runs tmux with `posix_spawn` and `waitpid`, stdout to a temporary file.
    ///
    /// Not `Process`: its `waitUntilExit` was seen to hang in async tests here, and a pipe would
    /// be held open forever by the tmux server that `new-session` daemonises.
    @discardableResult
    public func run(_ arguments: [String]) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("tmux-out-\(getpid())-\(UInt64.random(in: 0...UInt64.max))").path
        defer { unlink(outputPath) }
        let pid = try spawnWithDefaultSignals(
            [Self.executable ?? "tmux", "-u", "-L", socket] + arguments, output: outputPath)
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) == -1, errno == EINTR {}
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// Types `text` followed by Enter into the pane.
    public func typeLine(_ text: String) throws {
        try run("send-keys", "-t", target, "-l", text)
        try run("send-keys", "-t", target, "Enter")
    }

    /// Sends tmux key names (`q`, `Escape`, `C-c`, …).
    public func sendKeys(_ keys: String...) throws {
        try run(["send-keys", "-t", target] + keys)
    }

    /// The pane's visible text.
    public func capture() throws -> String {
        try run("capture-pane", "-p", "-t", target)
    }

    /// A tmux format evaluated for the pane, e.g. `#{pane_title}`.
    public func display(_ format: String) throws -> String {
        try run("display-message", "-p", "-t", target, format).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The pane's visible text, read on a thread of its own (``offThePool(_:)``): tmux is a process waited for, and
    /// tests that poll panes every 20 ms from the cooperative pool starve in-process servers of the whole suite.
    public func captured() async throws -> String {
        try await offThePool { [self] in try capture() }
    }

    /// Polls the pane until `condition` holds for its text or `timeout` passes; returns the last capture.
    @discardableResult
    public func waitFor(
        timeout: Duration = .seconds(15), _ condition: (String) -> Bool
    ) async throws -> (matched: Bool, screen: String) {
        let deadline = ContinuousClock.now + timeout
        var screen = try await captured()
        while !condition(screen) {
            guard ContinuousClock.now < deadline else { return (false, screen) }
            try await Task.sleep(for: .milliseconds(20))
            screen = try await captured()
        }
        return (true, screen)
    }

    /// Ends this session's tmux server.
    public func kill() {
        _ = try? run("kill-server")
        let directory = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        unlink("\(directory)/tmux-\(getuid())/\(socket)")
    }
}
