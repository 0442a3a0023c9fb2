import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// A v4 singleton from a service we did not write (issue 37): odatapy's `Dealership`
/// (`.ci/independent/ownership_service.py`). The built binary lists it among the sets, marked as one entity; Enter
/// opens its screen with its fields as the service holds them, and its navigations: the showroom's cars (bound to the
/// `Car` set) and its bays (contained in it, `Dealership/Bays(1)`), each listed as the service lists it over HTTP;
/// `e` changes its city, which the service then holds.
@Suite(
    .tags(.endToEnd),
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
        let screen = try await app.expect("its screen") {
            $0.contains(name) && $0.contains(city) && $0.contains("Showroom") && $0.contains("Bays")
        }
        #expect(screen.contains("Dealership detail") && screen.contains("dealershipID"), "\(screen)")
        /// What the service lists at `relative`, as `field` of each.
        func listed(_ relative: String, _ field: String) async throws -> [String] {
            let response = try await HTTPClientTransport(timeout: 10).send(
                TransportRequest(url: root + relative, dialect: .v4))
            let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            return (body["value"] as? [[String: Any]] ?? []).compactMap { $0[field] as? String }
        }
        let cars = try await listed("Dealership/Showroom", "model")
        let bays = try await listed("Dealership/Bays", "name")
        #expect(cars.count == 2 && bays.count == 2)
        // Its showroom: the cars the service names there
        try await app.select("Showroom")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the showroom's cars") { screen in cars.allSatisfy { screen.contains($0) } }
        try app.tmux.sendKeys("Escape")
        // Its bays, contained in it: each opens under the dealership
        try await app.select("Bays")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the bays") { screen in bays.allSatisfy { screen.contains($0) } }
        try app.tmux.sendKeys("Enter")
        try await app.expect("the first bay, under the dealership") {
            $0.contains("Dealership/Bays(1)") && $0.contains(bays[0])
        }
        // And `e` changes it: a PATCH of the singleton, on the service
        try app.tmux.sendKeys("Escape")
        try app.tmux.sendKeys("Escape")
        try await app.expect("its screen again") { $0.contains("Dealership detail") }
        try app.tmux.sendKeys("e")
        try await app.expect("its form") { $0.contains("Change Dealership") }
        try app.tmux.sendKeys("Tab")
        try app.tmux.sendKeys("C-u")
        let moved = city == "Tacoma" ? "Seattle" : "Tacoma"
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", moved)
        try app.tmux.sendKeys("Enter")
        #expect(
            try await eventually {
                let response = try await HTTPClientTransport(timeout: 10).send(
                    TransportRequest(url: root + "Dealership", dialect: .v4))
                let held = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                return held?["city"] as? String == moved
            })
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test func a_url_naming_the_singleton_opens_its_entity_not_a_list() async throws {
        let root = try #require(odatapyRoot)
        let app = try Launch("browse \(root)Dealership", columns: 100, rows: 12)
        defer { app.close() }
        try await app.expect("its screen") { $0.contains("Dealership detail") && $0.contains("Showroom") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
