import CarDealerTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real `cardealer` in tmux: resize storms, extreme window sizes, and termination signals
/// (issue 7, "terminal and signals").
///
/// Exit statuses are documented on ``TerminalSignal/exitStatus``: 0 after `q`, 128 + n after signal n.
@Suite(.tags(.endToEnd), .serialized, .enabled(if: CardealerProcess.isAvailable, "needs tmux and a built cardealer"))
struct TerminalSignalTests {
    @Test(arguments: [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")])
    func a_signal_restores_the_terminal_and_exits_with_128_plus_its_number(signal: Int32, name: String) async throws {
        // Given the browser on the built-in service, started from a shell whose tty settings are known
        let browser = try CardealerProcess()
        defer { browser.kill() }
        let before = try await browser.ttySettings()
        try browser.launch(["--people", "40"])
        let started = try await browser.tmux.waitFor { $0.contains("People") && $0.contains("online") }
        #expect(started.matched, "never drew:\n\(started.screen)")
        #expect(try browser.tmux.display("#{alternate_on}") == "1")
        let pid = try #require(try await browser.pid())

        // When the signal arrives
        #expect(kill(pid, signal) == 0)

        // Then it exits with 128 + n, leaves the alternate screen, shows the cursor, and restores the tty
        let status = try await browser.exitStatus()
        #expect(status == Int(128 + signal), "\(name): exit status \(String(describing: status))")
        #expect(try browser.tmux.display("#{alternate_on}") == "0", "\(name) left the alternate screen on")
        #expect(try browser.tmux.display("#{cursor_flag}") == "1", "\(name) left the cursor hidden")
        #expect(try await browser.ttySettings() == before, "\(name) left the tty modes changed")
        try browser.tmux.typeLine("echo back-$((40+2))")
        #expect(
            try await browser.tmux.waitFor { $0.contains("\nback-42") }.matched, "the shell does not echo after \(name)"
        )
    }

    @Test func a_storm_of_resizes_and_extreme_sizes_leave_a_working_browser() async throws {
        // Given the browser running in an 80×24 pane
        let browser = try CardealerProcess()
        defer { browser.kill() }
        let before = try await browser.ttySettings()
        try browser.launch(["--people", "40"])
        #expect(try await browser.tmux.waitFor { $0.contains("People") && $0.contains("online") }.matched)
        let pid = try #require(try await browser.pid())

        // When the window is resized 60 times, through 1×1, 20×5 and 300×100, with keys in between
        var random = WalkRandom(seed: 0x5123)
        let extremes = [(1, 1), (20, 5), (300, 100)]
        for step in 0..<60 {
            let (columns, rows) =
                step % 10 == 0
                ? extremes[(step / 10) % extremes.count]
                : (Int.random(in: 2...240, using: &random), Int.random(in: 2...80, using: &random))
            try browser.tmux.run("resize-window", "-t", browser.tmux.target, "-x", "\(columns)", "-y", "\(rows)")
            if step % 7 == 0 { try browser.tmux.sendKeys(["j", "Down", "Enter", "Escape"][step % 4]) }
        }
        // Then each extreme size draws something sensible
        for (columns, rows, expected) in [(1, 1, ""), (20, 5, "online"), (300, 100, "? help")] {
            try browser.tmux.run("resize-window", "-t", browser.tmux.target, "-x", "\(columns)", "-y", "\(rows)")
            // A 1×1 pane has room for nothing worth asserting; it must only not kill the browser.
            let drawn = try await browser.tmux.waitFor { expected.isEmpty || $0.contains(expected) }
            #expect(drawn.matched, "at \(columns)×\(rows):\n\(drawn.screen)")
            #expect(kill(pid, 0) == 0, "the browser died at \(columns)×\(rows)")
        }
        try browser.tmux.run("resize-window", "-t", browser.tmux.target, "-x", "80", "-y", "24")
        let settled = try await browser.tmux.waitFor { screen in
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return screen.contains("People") && screen.contains("? help") && lines.count >= 23
        }
        #expect(settled.matched, "after the storm:\n\(settled.screen)")
        #expect(kill(pid, 0) == 0, "the browser died in the storm")

        // And q still quits cleanly with the terminal given back
        try browser.tmux.sendKeys("q")
        #expect(try await browser.exitStatus() == 0)
        #expect(try browser.tmux.display("#{alternate_on}") == "0")
        #expect(try await browser.ttySettings() == before)
    }
}
