import CarDealerTestSupport
import DemoServer
import Foundation
import Testing

/// `s` in the built binary on the built-in service (issue 15): the people by name, down then up.
@Suite(
    .tags(.endToEnd), .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct SortInTmuxTests {
    typealias Launch = BrowserInTmuxTests.Launch

    @Test func s_sorts_the_people_by_name_both_ways() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-sort")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let profile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Browser/Profile/cardealer.profile.json").path
        let app = try Launch("browse \(server.baseURL)Person --profile \(profile)", columns: 100, rows: 40)
        defer { app.close() }
        let first = try await app.expect("the people") { $0.contains("1 of 30") && $0.contains("● online") }
        let top = first.split(separator: "\n")[2]  // the first row, in the profile's order (by last name)
        try app.tmux.sendKeys("s", "s")
        let sorted = try await app.expect("by name, descending") { $0.contains("Name ▼") }
        let rows = sorted.split(separator: "\n").dropFirst(2).prefix(30).map { String($0.dropFirst()) }
        #expect(rows.last?.hasPrefix(String(top.dropFirst())) == true, "\(rows)")
        #expect(rows == rows.sorted(by: >), "\(rows)")
        try app.tmux.sendKeys("s")
        try await app.expect("the next column") { $0.contains("Customer sin ▲") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
        await server.stop()
    }
}
