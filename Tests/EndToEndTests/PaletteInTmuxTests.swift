import CarDealerTestSupport
import Foundation
import Testing

/// `:` in the built binary, in a real terminal: completion, opening a set by name, a chart by name, `:q`.
@Suite(.serialized, .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
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
}
