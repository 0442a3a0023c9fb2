import CarDealerTestSupport
import DemoServer
import Foundation
import Testing

/// `y` / `Y` through a real terminal: tmux's own clipboard buffer receives the OSC 52 text (issue 15).
@Suite(
    .tags(.endToEnd), .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct YankInTmuxTests {
    typealias Launch = BrowserInTmuxTests.Launch

    @Test func y_and_Y_reach_tmuxs_clipboard_buffer() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-yank")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let profile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Browser/Profile/cardealer.profile.json").path
        let app = try Launch("browse \(server.baseURL)Person --profile \(profile)", columns: 100, rows: 30)
        defer { app.close() }
        // tmux keeps what an application copies with OSC 52 as a paste buffer
        _ = try app.tmux.run("set-option", "-s", "set-clipboard", "on")
        try await app.expect("the people") { $0.contains("1 of 30") && $0.contains("● online") }

        try app.tmux.sendKeys("y")
        try await app.expect("the notice") { $0.contains("Copied “Allen, Robert”") }
        #expect(try await eventually { (try? app.tmux.run("show-buffer")) == "Allen, Robert" })

        try app.tmux.sendKeys("Y")
        try await app.expect("the notice") { $0.contains("Copied Person(") && $0.contains("as JSON") }
        #expect(
            try await eventually {
                let buffer = (try? app.tmux.run("show-buffer")) ?? ""
                return buffer.hasPrefix("{") && buffer.contains(#""lastName":"Allen""#)
            })
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
        await server.stop()
    }
}
