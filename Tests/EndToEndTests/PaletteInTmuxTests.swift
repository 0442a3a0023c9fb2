import CarDealerTestSupport
import Foundation
import Testing

/// `:` in the built binary, in a real terminal: completion, opening a set by name, a chart by name, `:q`.
@Suite(
    .tags(.endToEnd), .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct PaletteInTmuxTests {
    typealias Launch = BrowserInTmuxTests.Launch

    @Test func the_command_line_opens_sets_charts_and_quits() async throws {
        let app = try Launch("--people 20", columns: 100, rows: 30)
        defer { app.close() }
        try await app.expect("the people") { $0.contains("Customer since") && $0.contains("1 of 20") }
        // `:Ca` Tab completes the set's name; Enter opens the cars
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Ca")
        try await app.expect("completions over the line") { $0.contains(":Ca") && $0.contains("entity set") }
        try app.tmux.sendKeys("Tab", "Enter")
        try await app.expect("every car") { $0.contains("People › Cars") && $0.contains("Model") }
        // A chart by name, of every service record
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Maintenance")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the records") { $0.contains("Mileage") && $0.contains("of ") }
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "chart cost by serviceDate")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the cost chart") { $0.contains("⠉ cost by serviceDate") && $0.contains("Tab next chart") }
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "q")
        try app.tmux.sendKeys("Enter")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test func open_starts_on_a_deep_screen_with_the_stack_behind_it() async throws {
        let app = try Launch("--people 20 --open 'Person(1)/PersonCar'", columns: 100, rows: 24)
        defer { app.close() }
        try await app.expect("Bob's cars at once") { $0.contains("Cars") && $0.contains("Explorer") }
        try app.tmux.sendKeys("Escape")
        try await app.expect("the people behind them") { $0.contains("Customer since") && !$0.contains("›") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// A left-button click at (`row`, `column`) as an xterm sends it: a press and a release, each ESC [ M, the
    /// button (0, or 3 for a release), the column and the row.
    func click(_ app: Launch, row: Int, column: Int) throws {
        let bytes = [0x1B, 0x5B, 0x4D, 32, 33 + column, 33 + row, 0x1B, 0x5B, 0x4D, 35, 33 + column, 33 + row].map {
            String(format: "%02x", $0)
        }
        try app.tmux.run(["send-keys", "-t", app.tmux.target, "-H"] + bytes)
    }

    @Test func clicks_select_open_and_walk_back_by_the_breadcrumb() async throws {
        let app = try Launch("--people 20", columns: 80, rows: 24)
        defer { app.close() }
        try await app.expect("the people") { $0.contains("Customer since") && $0.contains("1 of 20") }
        // The fourth person is on screen row 5 (breadcrumb, header, then rows)
        try click(app, row: 5, column: 4)
        try await app.expect("the fourth selected") { $0.contains("4 of 20") }
        try click(app, row: 5, column: 4)
        try click(app, row: 5, column: 4)
        try await app.expect("the fourth person's cars") { $0.contains("People › ") && $0.contains("Cars") }
        try click(app, row: 0, column: 2)
        try await app.expect("the people again") { $0.contains("Customer since") && !$0.contains("›") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test(
        arguments: [("", "38;5;68"), ("--theme light", "38;5;25"), ("--theme monochrome", nil)] as [(String, String?)])
    func the_theme_reaches_the_terminal(options: String, titleColour: String?) async throws {
        let binary = try #require(BuiltProducts.executable("cardealer"))
        let directory = try BuiltProducts.temporaryDirectory("cardealer-theme")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tmux = try TmuxSession(columns: 80, rows: 24)
        defer { tmux.kill() }
        // A 256-colour terminal, whatever the test runner's environment says about colour
        try tmux.typeLine(
            "env -u NO_COLOR TERM=xterm-256color XDG_CACHE_HOME=\(directory)/cache XDG_DATA_HOME=\(directory)/data "
                + "XDG_STATE_HOME=\(directory)/state \(binary) --people 20 \(options); echo EXIT=$?")
        #expect(try await tmux.waitFor { $0.contains("Customer since") && $0.contains("1 of 20") }.matched)
        // The breadcrumb's title colour, as tmux received it (256-colour SGR)
        let styled = try tmux.run("capture-pane", "-e", "-p", "-t", tmux.target)
        let firstLine = String(styled.split(separator: "\n").first ?? "")
        if let titleColour {
            #expect(firstLine.contains(titleColour), "\(firstLine.debugDescription)")
        } else {
            #expect(!styled.contains("38;5;"), "monochrome drew a colour: \(firstLine.debugDescription)")
        }
        try tmux.sendKeys("q")
        #expect(try await tmux.waitFor { $0.contains("EXIT=0") }.matched)
    }

    /// A direct-colour terminal (terminfo with the RGB flag, as `xterm-direct`) gets the theme as 24-bit colour,
    /// not palette numbers it would read as near-black RGB values.
    @Test func a_direct_colour_terminal_gets_red_green_and_blue() async throws {
        let binary = try #require(BuiltProducts.executable("cardealer"))
        let directory = try BuiltProducts.temporaryDirectory("cardealer-direct")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // xterm-direct is in Debian's ncurses-term; an entry of our own keeps the test to what ncurses-bin has
        let source = directory + "/direct.ti"
        try """
        cardealer-direct|xterm with direct colour,
        \tcolors#0x1000000, pairs#0x10000, RGB,
        \tsetaf=\\E[%?%p1%{8}%<%t3%p1%d%e38;2;%p1%{65536}%/%d;%p1%{256}%/%{255}%&%d;%p1%{255}%&%d%;m,
        \tsetab=\\E[%?%p1%{8}%<%t4%p1%d%e48;2;%p1%{65536}%/%d;%p1%{256}%/%{255}%&%d;%p1%{255}%&%d%;m,
        \tuse=xterm-256color,

        """.write(toFile: source, atomically: true, encoding: .utf8)
        let status = try await offThePool {
            let tic = try Process.run(
                URL(fileURLWithPath: "/usr/bin/tic"), arguments: ["-x", "-o", directory + "/terminfo", source])
            tic.waitUntilExit()
            return tic.terminationStatus
        }
        try #require(status == 0, "tic could not compile the direct-colour entry")
        let tmux = try TmuxSession(columns: 80, rows: 24)
        defer { tmux.kill() }
        try tmux.typeLine(
            "env -u NO_COLOR TERMINFO=\(directory)/terminfo TERM=cardealer-direct XDG_CACHE_HOME=\(directory)/cache "
                + "XDG_DATA_HOME=\(directory)/data XDG_STATE_HOME=\(directory)/state \(binary) --people 20; echo EXIT=$?"
        )
        #expect(try await tmux.waitFor { $0.contains("Customer since") && $0.contains("1 of 20") }.matched)
        let styled = try tmux.run("capture-pane", "-e", "-p", "-t", tmux.target)
        let firstLine = String(styled.split(separator: "\n").first ?? "")
        // The dark theme's title, palette colour 68, as xterm's red, green and blue for it
        #expect(firstLine.contains("38;2;95;135;215"), "\(firstLine.debugDescription)")
        #expect(!styled.contains("38;5;"), "a palette number reached a direct-colour terminal")
        try tmux.sendKeys("q")
        #expect(try await tmux.waitFor { $0.contains("EXIT=0") }.matched)
    }
}
