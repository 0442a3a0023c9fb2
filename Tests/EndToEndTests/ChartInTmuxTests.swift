import CarDealerTestSupport
import DemoServer
import Foundation
import Testing

/// `c` in the built binary, in a real terminal: the service's maintenance records as a braille chart (issue 16).
@Suite(
    .tags(.endToEnd), .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct ChartInTmuxTests {
    typealias Launch = BrowserInTmuxTests.Launch

    @Test func c_draws_mileage_over_service_date_in_braille() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-chart")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let profile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Browser/Profile/cardealer.profile.json").path
        let app = try Launch("browse \(server.baseURL)Maintenance --profile \(profile)", columns: 100, rows: 30)
        defer { app.close() }
        try await app.expect("the records") { $0.contains("Mileage") && $0.contains("● online") }
        try app.tmux.sendKeys("c")
        // (the status line's spinner is braille too: the plot is looked for above it)
        try await app.expect("the chart, filled in as the records arrive") { screen in
            let plot = screen.split(separator: "\n").dropLast().joined()
            return screen.contains("← → move") && plot.contains("mileage by serviceDate")
                && plot.unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) }
        }
        // Moving the point, then back: the list's cursor is on the record the chart showed last
        try app.tmux.sendKeys("Home", "Escape")
        try await app.expect("the list again") { $0.contains("Mileage") && !$0.contains("by serviceDate") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
        await server.stop()
    }
}
