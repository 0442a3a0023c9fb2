import CarDealerTestSupport
import Foundation
import Testing

/// The built `cardealer` binary in a real terminal (tmux), driven by keys, read with `capture-pane`.
///
/// Each test gets private cache and data directories, so it starts cold and leaves nothing behind.
@Suite(
    .tags(.endToEnd), .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct BrowserInTmuxTests {
    /// The browser in a private pane (``CardealerInTmux``), under the name these suites know it by.
    typealias Launch = CardealerInTmux

    /// Once per dialect: the built-in service speaks OData v2 and (`--odata-version 4`) v4 over the same data.
    @Test(arguments: ["", "--odata-version 4"])
    func drilling_people_cars_maintenance_and_back_then_resizing_and_quitting(arguments: String) async throws {
        // Given cardealer on the built-in service in an 80×24 terminal
        let app = try Launch(arguments)
        defer { app.close() }
        try await app.expect("the people list") {
            $0.contains("Customer since") && $0.contains("● online") && !$0.contains("loading…")
        }

        // When the user filters for Samson and opens Bob
        try app.tmux.sendKeys("/")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "samson")
        try await app.expect("Bob Samson found by the filter") { $0.contains("Samson, Bob") && $0.contains("/samson") }
        try app.tmux.sendKeys("Enter", "Enter")

        // Then his cars show under the breadcrumb, reached through PersonCar without showing it
        try await app.expect("Bob's cars, reached without a PersonCar screen") {
            $0.contains("People › Samson, Bob") && $0.contains("Explorer") && $0.contains("Mustang")
                && $0.contains("Cars")
                && !$0.contains("PersonCar") && $0.contains("? help")
        }

        // When he opens the Explorer
        try app.tmux.sendKeys("Enter")
        // (every condition inside the wait: a capture can catch a frame half drawn)
        try await app.expect("the Explorer's maintenance") {
            $0.contains("People › Samson, Bob › Ford Explorer") && $0.contains("Maintenance") && $0.contains("Mileage")
                && !$0.contains("loading…") && $0.contains("? help")
        }

        // And goes back twice
        try app.tmux.sendKeys("Escape")
        try await app.expect("the cars again") {
            $0.contains("People › Samson, Bob") && !$0.contains("Ford Explorer  ") && $0.contains("Mustang")
        }
        try app.tmux.sendKeys("Escape")
        try await app.expect("the people list again") { $0.contains("Customer since") && !$0.contains("›") }

        // When the terminal shrinks to 40×10 and grows back
        try app.tmux.run("resize-window", "-t", app.tmux.target, "-x", "40", "-y", "10")
        try await app.expect("a 40-column layout") { screen in
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.count <= 11 && screen.contains("People") && screen.contains("help")
                && lines.allSatisfy { $0.count <= 40 }
        }
        try app.tmux.run("resize-window", "-t", app.tmux.target, "-x", "80", "-y", "24")
        try await app.expect("the full layout again") { $0.contains("Customer since") && $0.contains("? help") }

        // Then q quits with status 0 and the shell gets its terminal back
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit with the browser's screen gone") {
            $0.contains("EXIT=0") && !$0.contains("Customer since")
        }
        try app.tmux.typeLine("echo restored-$((20+22))")
        try await app.expect("the shell echoing again") { $0.contains("\nrestored-42") }

        // And the session was logged to a private file, not the screen
        let log = app.directory + "/state/cardealer/cardealer.log"
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("browsing http://127.0.0.1:") && text.contains("quit"))
        #expect(text.contains("/v4/CarDealer.svc/") == arguments.contains("4"))
        let mode = try FileManager.default.attributesOfItem(atPath: log)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func with_300_ms_latency_a_settled_people_list_opens_any_visible_person_at_once() async throws {
        // Given cardealer on a built-in service that answers every request 300 ms late
        let app = try Launch("--latency 300")
        defer { app.close() }

        // When the people list has settled (rows shown, nothing in flight)
        try await app.expect("a settled people list", timeout: .seconds(30)) { screen in
            screen.contains("Customer since") && !screen.contains("loading…") && !screen.contains("request")
        }

        // Then Enter on each visible person shows their cars in the very first frame of the new screen
        for row in 0..<8 {
            let before = try app.tmux.capture()
            let name = Self.selectedName(in: before, row: row)
            try app.tmux.sendKeys("Enter")
            let opened = try await app.expect("person \(row)'s cars") { $0.contains("People › ") }
            #expect(!opened.contains("loading…"), "person \(row) (\(name)) opened with rows still loading:\n\(opened)")
            try app.tmux.sendKeys("Escape", "Down")
            try await app.expect("the people list") { !$0.contains("People › ") }
        }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// The name on list row `row` (for failure messages).
    static func selectedName(in screen: String, row: Int) -> String {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        let index = 2 + row
        return index < lines.count ? String(lines[index].prefix(32)).trimmingCharacters(in: .whitespaces) : "?"
    }
}
