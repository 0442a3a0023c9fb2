import CarDealerTestSupport
import Foundation
import Testing

/// What `TERM` a person arrives with (an IDE's `dumb`, an old `vt100`, a name terminfo lacks) in a real terminal.
@Suite(.serialized, .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
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
        let result = try await tmux.waitFor { $0.contains("EXIT=") }
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
}
