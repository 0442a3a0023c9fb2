import CarDealerTestSupport
import Foundation
import Testing

/// What `TERM` a person arrives with (an IDE's `dumb`, an old `vt100`, a name terminfo lacks) in a real terminal.
@Suite(
    .tags(.endToEnd), .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct TermVariantsInTmuxTests {
    /// Runs the demo with `TERM=term` in a fresh pane; returns the pane and the private directory.
    func launch(term: String) throws -> (TmuxSession, String) {
        let binary = try #require(BuiltProducts.executable("cardealer"), "cardealer is not built (swift build first)")
        let directory = try BuiltProducts.temporaryDirectory("cardealer-term")
        let tmux = try TmuxSession(columns: 80, rows: 24)
        try tmux.typeLine(
            "clear; XDG_CACHE_HOME=\(directory)/cache XDG_DATA_HOME=\(directory)/data "
                + "XDG_STATE_HOME=\(directory)/state TERM=\(term) \(binary) --people 20; echo EXIT=$?")
        return (tmux, directory)
    }

    @Test func term_dumb_is_refused_with_a_sentence_instead_of_a_garbled_screen() async throws {
        let (tmux, directory) = try launch(term: "dumb")
        defer {
            tmux.kill()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let result = try await tmux.waitFor { $0.contains("EXIT=1") }
        #expect(result.screen.contains("EXIT=1"), "\(result.screen)")
        #expect(result.screen.replacingOccurrences(of: "\n", with: "").contains("cannot move the cursor"))
    }

    @Test func on_vt100_quitting_leaves_no_frame_behind() async throws {
        let (tmux, directory) = try launch(term: "vt100")
        defer {
            tmux.kill()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let people = try await tmux.waitFor { $0.contains("Customer since") && $0.contains("1 of 20") }
        #expect(people.matched, "\(people.screen)")
        try tmux.sendKeys("q")
        let after = try await tmux.waitFor { $0.contains("EXIT=0") }
        #expect(after.matched, "\(after.screen)")
        #expect(!after.screen.contains("Customer since"), "the last frame stayed:\n\(after.screen)")
    }

    @Test func an_unknown_term_falls_back_and_says_so_in_the_log() async throws {
        let (tmux, directory) = try launch(term: "no-such-terminal")
        defer {
            tmux.kill()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let people = try await tmux.waitFor { $0.contains("Customer since") && $0.contains("1 of 20") }
        #expect(people.matched, "\(people.screen)")
        try tmux.sendKeys("q")
        #expect(try await tmux.waitFor { $0.contains("EXIT=0") }.matched)
        let log = (try? String(contentsOfFile: directory + "/state/cardealer/cardealer.log", encoding: .utf8)) ?? ""
        #expect(log.contains("TERM=no-such-terminal is not known to terminfo; drawing as xterm-256color"), "\(log)")
    }

    /// The demo's first person, their first car, its history charted with `c`.
    func chartFirstCar(term: String) async throws -> (TmuxSession, String, String) {
        let (tmux, directory) = try launch(term: term)
        let people = try await tmux.waitFor { $0.contains("Customer since") && $0.contains("1 of 20") }
        #expect(people.matched, "\(people.screen)")
        try tmux.sendKeys("Enter")
        #expect(try await tmux.waitFor { $0.contains("Cars") && $0.contains("Model") }.matched)
        try tmux.sendKeys("Enter")
        let history = try await tmux.waitFor { $0.contains("Mileage") && $0.contains("of 30") }
        #expect(history.matched, "the first car's 30 services: \(history.screen)")
        try tmux.sendKeys("c")
        let chart = try await tmux.waitFor { $0.contains("mileage by serviceDate") && $0.contains("Tab next chart") }
        #expect(chart.matched, "\(chart.screen)")
        return (tmux, directory, chart.screen)
    }

    @Test func the_demos_first_car_has_a_history_charted_in_braille() async throws {
        let (tmux, directory, screen) = try await chartFirstCar(term: "xterm-256color")
        defer {
            tmux.kill()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let plot = screen.split(separator: "\n").dropLast().joined()
        #expect(plot.unicodeScalars.filter { (0x2801...0x28FF).contains($0.value) }.count > 30, "\(screen)")
        // Tab: cost per service and its running total
        try tmux.sendKeys("Tab")
        #expect(try await tmux.waitFor { $0.contains("total by serviceDate") && $0.contains("Σ ") }.matched)
        try tmux.sendKeys("q")
        #expect(try await tmux.waitFor { $0.contains("EXIT=0") }.matched)
    }

    @Test func on_vt100_the_chart_is_drawn_in_ascii() async throws {
        let (tmux, directory, screen) = try await chartFirstCar(term: "vt100")
        defer {
            tmux.kill()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let plot = screen.split(separator: "\n").dropLast().joined()
        #expect(!plot.unicodeScalars.contains { (0x2800...0x28FF).contains($0.value) }, "\(screen)")
        #expect(plot.filter { $0 == "*" }.count > 30, "\(screen)")
        try tmux.sendKeys("q")
        #expect(try await tmux.waitFor { $0.contains("EXIT=0") }.matched)
    }
}
