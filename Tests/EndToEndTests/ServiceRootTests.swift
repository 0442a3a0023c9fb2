import CarDealerTestSupport
import DemoServer
import Foundation
import Testing

/// Issue 11, item 8: URLs that are not a service root, and what `cardealer browse` says or does with them.
@Suite(.serialized, .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct ServiceRootTests {
    typealias Launch = BrowserInTmuxTests.Launch

    @Test func a_URL_naming_an_entity_set_opens_that_set_under_the_service_root() async throws {
        // Given the built-in service, and a URL that names its Person set rather than the service root
        let directory = try BuiltProducts.temporaryDirectory("cardealer-root")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let app = try Launch("browse \(server.baseURL)Person")
        defer { app.close() }
        // Then the browser opens the Person list of that service, with its rows, not an empty list or an error
        let screen = try await app.expect("the Person list") {
            $0.contains("Person") && $0.contains("● online") && $0.contains("1 of 30") && !$0.contains("loading…")
        }
        #expect(!screen.contains("HTTP 400"))
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
        // (the browser gone first: the server's shutdown waits for its connections)
        app.close()
        await server.stop()
    }

    @Test func a_URL_that_is_not_a_service_root_says_what_a_service_root_is() async throws {
        // Given the built-in service, and a URL under it with no $metadata
        let directory = try BuiltProducts.temporaryDirectory("cardealer-root")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let origin = server.baseURL.replacingOccurrences(of: "CarDealer.svc/", with: "")
        let app = try Launch("browse \(origin)no/such/root/", columns: 200, rows: 30)
        defer { app.close() }
        // Then it ends with a sentence naming the failure and asking whether the URL is a service root
        let screen = try await app.expect("the sentence and the exit status") {
            $0.range(of: "EXIT=[0-9]", options: .regularExpression) != nil
        }
        // (the pane wraps long lines: read the sentence as one)
        let text = screen.replacingOccurrences(of: "\n", with: "")
        #expect(text.contains("HTTP 404"), "\(screen)")
        #expect(text.contains("the service root?"), "\(screen)")
        #expect(screen.contains("EXIT=1") || screen.contains("EXIT=64"), "\(screen)")
        app.close()
        await server.stop()
    }
}
