import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// A v4 singleton from a service we did not write (issue 37): odatapy's `Dealership`
/// (`.ci/independent/ownership_service.py`). The built binary lists it among the sets, marked as one entity, and
/// Enter shows its fields as the service holds them (read over HTTP too).
@Suite(
    .serialized, .enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)"),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed")
)
struct IndependentSingletonTests {
    typealias Launch = BrowserInTmuxTests.Launch

    @Test func a_singleton_is_listed_among_the_sets_and_opens_as_the_service_holds_it() async throws {
        let root = try #require(odatapyRoot)
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "Dealership", dialect: .v4))
        let held = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let name = try #require(held["name"] as? String)
        let city = try #require(held["city"] as? String)
        let app = try Launch("browse \(root)", columns: 100, rows: 16)
        defer { app.close() }
        try await app.expect("the sets and the singleton") {
            $0.contains("Dealership  · one") && $0.contains("● online")
        }
        try await app.select("Dealership")
        try app.tmux.sendKeys("Enter")
        let screen = try await app.expect("its fields") { $0.contains(name) && $0.contains(city) }
        #expect(screen.contains("Singleton") && screen.contains("dealershipID"), "\(screen)")
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
