import CarDealerTestSupport
import Foundation
import Testing

/// One end-to-end check through real ncurses: the TerminalDemo executable inside tmux.
@Suite(
    .tags(.endToEnd),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping the real-terminal test"))
struct RealTerminalTests {
    /// The built TerminalDemo next to the test bundle (`.build/<config>/`).
    static func demoExecutable() -> String? { BuiltProducts.executable("TerminalDemo") }

    @Test func hostile_text_shows_as_placeholders_and_quitting_gives_the_terminal_back() async throws {
        let demo = try #require(Self.demoExecutable(), "TerminalDemo is not built (swift build first)")
        let tmux = try TmuxSession(columns: 80, rows: 24)
        defer { tmux.kill() }

        // Given the demo running in an 80×24 pane
        try tmux.typeLine("\(demo); echo EXIT=$?")
        let rows = [
            "osc: ␛after-osc", "csi: ␛red␛ plain", "bel: ding␇dong", "c1 csi: x␛y",
            "rlo: abc⇆fdp.exe", "zwsp: a␣b", "tab/lf: a␉b␊c", "cjk: 日本語テキスト end",
        ]
        // (every row inside the wait: a capture can catch a frame half drawn)
        let started = try await tmux.waitFor { screen in
            screen.contains("terminal-demo  (q quits)") && rows.allSatisfy { screen.contains($0) }
                && screen.contains("80×24")
        }

        // Then every hostile row shows placeholders, and nothing reached the terminal raw
        let screen = started.screen
        for row in rows {
            #expect(screen.contains(row), "missing \(row) in:\n\(screen)")
        }
        #expect(!screen.contains("pwned"))
        #expect(try tmux.display("#{pane_title}") != "pwned-title")
        #expect(screen.contains("80×24"))

        // When a key is typed it arrives decoded
        try tmux.sendKeys("x")
        let typed = try await tmux.waitFor { $0.contains("key=char(\"x\")") }
        #expect(typed.matched, "key not shown:\n\(typed.screen)")

        // When q is pressed the demo exits 0 and the shell has its terminal back
        try tmux.sendKeys("q")
        let exited = try await tmux.waitFor { $0.contains("EXIT=0") }
        #expect(exited.matched, "no clean exit:\n\(exited.screen)")
        #expect(!exited.screen.contains("terminal-demo  (q quits)"), "alternate screen not left")
        try tmux.typeLine("echo back-$((40+2))")
        let echoed = try await tmux.waitFor { $0.contains("echo back-$((40+2))") && $0.contains("\nback-42") }
        #expect(echoed.matched, "typed text not echoed after exit:\n\(echoed.screen)")
    }

    @Test func an_unknown_term_falls_back_and_no_color_gives_monochrome() async throws {
        let demo = try #require(Self.demoExecutable(), "TerminalDemo is not built (swift build first)")
        let tmux = try TmuxSession(columns: 80, rows: 24)
        defer { tmux.kill() }

        // Given TERM unknown to terminfo and NO_COLOR set
        try tmux.typeLine("TERM=no-such-terminal NO_COLOR=1 \(demo); echo EXIT=$?")
        // Then the demo still starts, on xterm-256color, without colours
        let started = try await tmux.waitFor { $0.contains("xterm-256color monochrome") }
        #expect(started.matched, "no fallback:\n\(started.screen)")
        try tmux.sendKeys("q")
        #expect(try await tmux.waitFor { $0.contains("EXIT=0") }.matched)
    }

    @Test func ctrl_c_restores_the_terminal_and_exits_with_130() async throws {
        let demo = try #require(Self.demoExecutable(), "TerminalDemo is not built (swift build first)")
        let tmux = try TmuxSession(columns: 80, rows: 24)
        defer { tmux.kill() }

        // Given the demo running
        try tmux.typeLine("\(demo); echo EXIT=$?")
        #expect(try await tmux.waitFor { $0.contains("terminal-demo  (q quits)") }.matched)
        // When Ctrl-C is pressed
        try tmux.sendKeys("C-c")
        // Then it exits with 128 + SIGINT, off the alternate screen
        let exited = try await tmux.waitFor { $0.contains("EXIT=130") }
        #expect(exited.matched, "no exit on Ctrl-C:\n\(exited.screen)")
        #expect(!exited.screen.contains("terminal-demo  (q quits)"))
    }
}
