import CarDealerTestSupport
import Foundation
import Terminal
import Testing

/// Hostile strings from the server, end to end: `cardealer --hostile` in tmux (issue 7).
///
/// The data variant (``HostileStrings`` in DemoServer) puts escape sequences, controls, bidi overrides,
/// zero-width characters, emoji with joiners and a 100 KB string into names, models and descriptions.
@Suite(.tags(.endToEnd), .serialized, .enabled(if: CardealerProcess.isAvailable, "needs tmux and a built cardealer"))
struct HostileDataTests {
    /// What each hostile last name must look like on screen (placeholders instead of controls).
    static let placeholders = [
        "!␛OscTitle", "!␛Red␛CsiColour", "!␛␛ClearScreen", "!␛␛CursorOff", "!Bell␇␇Ring", "!␛C1Csi␛",
        "!abc⇆exe.txt⇆Bidi", "!Zero␣Width␣␣Space", "!Line␊Break␍Tab␉End", "!␛Dcs", "!Wide日本語テキスト",
        "!LongLongLong",
    ]

    @Test func hostile_strings_show_as_placeholders_and_never_reach_the_terminal() async throws {
        // Given the browser on the hostile variant of the built-in service, in a pane with a known title
        let browser = try CardealerProcess(columns: 100, rows: 30)
        defer { browser.kill() }
        try browser.tmux.run("select-pane", "-t", browser.tmux.target, "-T", "before")
        let before = try await browser.ttySettings()
        try browser.launch(["--people", "30", "--hostile"])

        // When the first screen has drawn every hostile person
        let drawn = try await browser.tmux.waitFor(timeout: .seconds(30)) { screen in
            Self.placeholders.allSatisfy { screen.contains($0) }
        }
        let screen = drawn.screen
        #expect(drawn.matched, "placeholders missing:\n\(screen)")

        // Then nothing reached the terminal raw: no title, no alternate-screen exit, no payload text
        #expect(try browser.tmux.display("#{pane_title}") == "before")
        #expect(
            try browser.tmux.display("#{alternate_on}") == "1",
            "a hostile string took the terminal out of the alternate screen")
        for leaked in ["pwned", "c1-title", "dcs-payload", "31;1m", "[2J", "?25l"] {
            #expect(!screen.contains(leaked), "\(leaked) reached the screen:\n\(screen)")
        }
        // and no row was coloured by the data: the CSI row carries only the browser's own attributes
        let styled = try browser.tmux.run("capture-pane", "-p", "-e", "-t", browser.tmux.target)
        let csiRow = styled.split(separator: "\n").first { $0.contains("CsiColour") }.map(String.init) ?? ""
        #expect(
            !csiRow.contains("[31") && !csiRow.contains(";31m") && !csiRow.contains("[5m"),
            "data styled a row: \(csiRow.debugDescription)")

        // and the "Customer since" column starts at the same display column on every row
        let rows = screen.split(separator: "\n").map(String.init).filter {
            $0.range(of: #"\d{4}-\d{2}-\d{2}"#, options: .regularExpression) != nil
        }
        let columns = Set(
            rows.map { row -> Int in
                let date = row.range(of: #"\d{4}-\d{2}-\d{2}"#, options: .regularExpression)!
                return DisplayWidth.width(of: String(row[..<date.lowerBound]))
            })
        #expect(rows.count >= Self.placeholders.count, "rows with dates:\n\(rows.joined(separator: "\n"))")
        #expect(columns.count == 1, "the date column moved: \(columns.sorted())\n\(rows.joined(separator: "\n"))")
        #expect(rows.allSatisfy { DisplayWidth.width(of: $0) <= 100 }, "a row is wider than the pane")

        // When drilling into the first person's cars and their service history, and opening a detail screen
        try browser.tmux.sendKeys("Enter")
        _ = try await browser.tmux.waitFor { $0.contains("Cars") }
        try browser.tmux.sendKeys("Enter")
        try browser.tmux.sendKeys("d")
        let deeper = try await browser.tmux.waitFor { $0.contains("│") || $0.contains(":") }
        #expect(!deeper.screen.contains("pwned") && !deeper.screen.contains("car-title"))
        #expect(try browser.tmux.display("#{pane_title}") == "before")

        // Then q quits cleanly and the terminal is as it was: title, modes, cursor
        try browser.tmux.sendKeys("q")
        #expect(try await browser.exitStatus() == 0)
        #expect(try browser.tmux.display("#{pane_title}") == "before")
        #expect(try browser.tmux.display("#{alternate_on}") == "0")
        #expect(try browser.tmux.display("#{cursor_flag}") == "1")
        #expect(try await browser.ttySettings() == before)
    }
}
