import CarDealerTestSupport
import Foundation
import Testing

/// `config.toml` (issue 15): refused at start with its line and reason, checked by `cardealer config check`, and
/// obeyed: a theme, a key bound to an action.
@Suite(.tags(.endToEnd), .serialized) struct ConfigFileTests {
    /// `cardealer ARGUMENTS` with `XDG_CONFIG_HOME` in `directory`, to its end: (status, output + error).
    static func run(_ arguments: [String], directory: String) async throws -> (Int32, String) {
        try await offThePool {
            try CommandLineTests.runWithStatus(
                arguments, in: directory,
                environment: [
                    "XDG_CONFIG_HOME": directory + "/config", "XDG_CACHE_HOME": directory + "/cache",
                    "XDG_DATA_HOME": directory + "/data",
                ])
        }
    }

    func write(_ text: String, in directory: String) throws {
        try FileManager.default.createDirectory(
            atPath: directory + "/config/cardealer", withIntermediateDirectories: true)
        try text.write(toFile: directory + "/config/cardealer/config.toml", atomically: true, encoding: .utf8)
    }

    @Test func a_bad_file_is_refused_with_its_line_and_reason() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-config")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/config/cardealer/config.toml"
        let cases: [(String, String)] = [
            ("theme = \"light\"\nmouse = = 1\n", "\(path):2:"),
            ("theme = \"neon\"\n", "\(path):1: no theme 'neon'; the themes are dark, light"),
            ("# mine\ncolour = \"red\"\n", "\(path):2: unknown setting 'colour'"),
            ("mouse = \"yes\"\n", "\(path):1: 'mouse' must be true or false."),
            ("page-size = 0\n", "'page-size' must be a whole number from 1 to 1000."),
            ("batch-size = 5000\n", "'batch-size' must be a whole number from 1 to 1000."),
            ("[keys]\nexplode = \"x\"\n", "\(path):2: no action 'explode' to bind"),
            ("[keys]\nquit = \"xyz\"\n", "'quit' must be a key or a list of keys"),
            ("[keys]\ndown = [\"j\", 3]\n", "\(path):2: 'down' must be a key or a list of keys"),
            ("[keys]\nunbind = \"nothing\"\n", "'unbind' must be a key or a list of keys"),
            ("service = \"ftp://host/\"\n", "'service' must be an http(s) service root"),
            ("[sign-in]\nclient-secret = \"hunter2\"\n", "\(path):2: no secret is kept in the config file"),
            ("[sign-in]\ngrant = \"magic\"\n", "no grant 'magic'; the grants are client-credentials"),
            ("[sign-in]\nclient = \"x\"\n", "unknown sign-in setting 'client'"),
        ]
        for (text, expected) in cases {
            try write(text, in: directory)
            let checked = try await Self.run(["config", "check"], directory: directory)
            #expect(checked.0 == 1 && checked.1.contains(expected), "\(text.debugDescription): \(checked)")
            // Browsing refuses to start on it, with the same words, and no terminal taken
            let started = try await Self.run(["--people", "5"], directory: directory)
            #expect(started.0 != 0 && started.1.contains(expected), "\(text.debugDescription): \(started)")
        }
        // What `config default` prints is itself a good file
        let defaults = try await Self.run(["config", "default"], directory: directory)
        try write(defaults.1, in: directory)
        let checked = try await Self.run(["config", "check"], directory: directory)
        #expect(checked.0 == 0 && checked.1.contains("is good"), "\(checked)")
        #expect(
            try await Self.run(["config", "path"], directory: directory).1.trimmingCharacters(in: .newlines) == path)
    }

    @Test(.enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
    func a_theme_and_a_key_from_the_file_are_obeyed() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-config")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try write(
            "theme = \"light\"\n[keys]\nquit = \"Q\"\ndown = [\"down\", \"n\"]\nunbind = [\"q\"]\n", in: directory)
        let binary = try #require(BuiltProducts.executable("cardealer"))
        let tmux = try TmuxSession(columns: 80, rows: 24)
        defer { tmux.kill() }
        try tmux.typeLine(
            "env -u NO_COLOR TERM=xterm-256color HOME=\(directory) XDG_CONFIG_HOME=\(directory)/config "
                + "XDG_CACHE_HOME=\(directory)/cache XDG_DATA_HOME=\(directory)/data XDG_STATE_HOME=\(directory)/state "
                + "\(binary) --people 20; echo EXIT=$?")
        #expect(try await tmux.waitFor { $0.contains("Customer since") && $0.contains("1 of 20") }.matched)
        let styled = try tmux.run("capture-pane", "-e", "-p", "-t", tmux.target)
        #expect(styled.split(separator: "\n").first?.contains("38;5;25") == true, "the light theme's title colour")
        // n moves down as the file binds it; q, unbound, does not quit
        try tmux.sendKeys("n", "q", "n")
        #expect(try await tmux.waitFor { $0.contains("3 of 20") }.matched)
        #expect(!(try tmux.capture().contains("EXIT=")))
        // Q quits, as the file binds it; typed into a filter it is only a letter
        try tmux.sendKeys("/", "Q")
        #expect(try await tmux.waitFor { $0.contains("/Q") }.matched)
        try tmux.sendKeys("Escape", "Escape", "Q")
        #expect(try await tmux.waitFor { $0.contains("EXIT=0") }.matched)
    }
}

/// `--log-level` (issue 15): the browser's and the in-process demo server's logs in the state directory, as much
/// as asked for, never on the screen.
@Suite(.tags(.endToEnd), .serialized, .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
struct LogLevelTests {
    func session(_ level: String) async throws -> (log: String, screen: String) {
        let binary = try #require(BuiltProducts.executable("cardealer"))
        let directory = try BuiltProducts.temporaryDirectory("cardealer-log")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tmux = try TmuxSession(columns: 80, rows: 24)
        defer { tmux.kill() }
        try tmux.typeLine(
            "clear; XDG_CACHE_HOME=\(directory)/cache XDG_DATA_HOME=\(directory)/data XDG_STATE_HOME=\(directory)/state "
                + "\(binary) --people 20 --log-level \(level); echo EXIT=$?")
        #expect(try await tmux.waitFor { $0.contains("Customer since") && $0.contains("1 of 20") }.matched)
        try tmux.sendKeys("q")
        let end = try await tmux.waitFor { $0.contains("EXIT=0") }
        let log = (try? String(contentsOfFile: directory + "/state/cardealer/cardealer.log", encoding: .utf8)) ?? ""
        return (log, end.screen)
    }

    @Test func debug_has_the_demo_servers_lines_and_error_keeps_the_log_quiet() async throws {
        let debug = try await session("debug")
        #expect(debug.log.contains("demo-server: Server started and listening on 127.0.0.1:"), "\(debug.log)")
        #expect(debug.log.contains("debug: demo-server:"))
        #expect(debug.log.contains("browsing http://127.0.0.1:"))
        #expect(!debug.screen.contains("demo-server"), "a log line reached the screen: \(debug.screen)")
        let quiet = try await session("error")
        #expect(!quiet.log.contains("browsing") && !quiet.log.contains("demo-server"), "\(quiet.log)")
    }
}
