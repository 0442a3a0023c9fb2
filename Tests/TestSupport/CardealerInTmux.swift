import Foundation
import Testing

/// The built `cardealer` typed into a private tmux pane, its cache, data and state in a private directory: how a
/// test runs the browser in a real terminal, driven by keys and read with `capture-pane`.
public struct CardealerInTmux: Sendable {
    public let tmux: TmuxSession
    /// Holds `cache/`, `data/` (the demo's generated data) and `state/` (the log, tokens).
    public let directory: String

    /// A fresh pane of `columns`×`rows` and a private directory (`directory` when given, to start again on what an
    /// earlier run left), nothing typed yet.
    public init(columns: Int = 80, rows: Int = 24, directory: String? = nil) throws {
        if let directory {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            self.directory = directory
        } else {
            self.directory = try BuiltProducts.temporaryDirectory("cardealer-e2e")
        }
        tmux = try TmuxSession(columns: columns, rows: rows)
    }

    /// Starts `cardealer ARGUMENTS` in a fresh `columns`×`rows` pane, then prints its exit status; `wrapper` goes
    /// before the binary (`strace …`), `environment` before that (`NAME=value `).
    public init(
        _ arguments: String = "", columns: Int = 80, rows: Int = 24, wrapper: String = "", environment: String = ""
    ) throws {
        try self.init(columns: columns, rows: rows)
        try launch(arguments, wrapper: wrapper, environment: environment)
    }

    /// Types the command line that runs `cardealer ARGUMENTS`, then prints `EXIT=<status>` when it ends.
    public func launch(_ arguments: String, wrapper: String = "", environment: String = "") throws {
        guard let binary = BuiltProducts.executable("cardealer") else { throw BuiltProducts.NotBuilt() }
        try tmux.typeLine(
            "\(environment)XDG_CACHE_HOME=\(directory)/cache XDG_DATA_HOME=\(directory)/data "
                + "XDG_STATE_HOME=\(directory)/state \(wrapper)\(binary) \(arguments); echo EXIT=$?")
    }

    /// Ends the pane and removes the directory.
    public func close() {
        tmux.kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Presses `j` until the line that starts with `label` is the selected one (at most `presses` times), failing the
    /// test with the screen when it never is: a detail's lines move with the sections a service declares, so a test
    /// finds a line by what it says, not by where it was.
    public func select(_ label: String, presses: Int = 60) async throws {
        // (the selection mark, the spaces some screens put after it, then the label)
        let pattern = "▌ *" + NSRegularExpression.escapedPattern(for: label)
        let selected = { (screen: String) in screen.range(of: pattern, options: .regularExpression) != nil }
        for _ in 0..<presses {
            if selected(try await tmux.captured()) { return }
            try tmux.sendKeys("j")
            _ = try await tmux.waitFor(timeout: .milliseconds(300), selected)
        }
        let screen = try tmux.capture()
        #expect(selected(screen), "never selected \(label); the screen was:\n\(screen)")
    }

    /// Waits for the screen to satisfy `condition`, failing the test with the screen when it never does.
    @discardableResult
    public func expect(
        _ what: String, timeout: Duration = .seconds(20), _ condition: (String) -> Bool
    ) async throws -> String {
        let result = try await tmux.waitFor(timeout: timeout, condition)
        #expect(result.matched, "never saw \(what); the screen was:\n\(result.screen)")
        return result.screen
    }
}
