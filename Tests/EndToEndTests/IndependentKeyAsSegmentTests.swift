import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// Keys as segments on a service we did not write (issue 37): odatapy serves the ownership data again at `/ks/`, its
/// container declaring `Capabilities.KeyAsSegmentSupported` (`.ci/independent/ownership_service.py`). The built
/// binary reads a car there and changes its model with `e`: the change reaches the service (read back over HTTP at
/// the other root, which shares its data), sent to `Car/3` as such a service addresses it.
@Suite(
    .tags(.endToEnd),
    .serialized, .enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)"),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed")
)
struct IndependentKeyAsSegmentTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// Car 3 as the service holds it.
    func car(_ root: String) async throws -> [String: Any] {
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "Car(3)", dialect: .v4))
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func a_car_changed_on_a_service_that_takes_keys_as_segments_reaches_it() async throws {
        let root = try #require(odatapyRoot)
        let segments = root.replacingOccurrences(of: "/odata/", with: "/ks/")
        let held = try await car(root)
        let (make, model) = (try #require(held["make"] as? String), try #require(held["model"] as? String))
        let newModel = "Civic \(Int.random(in: 10_000...99_999))"
        let app = try Launch("browse \(segments)Car", columns: 120, rows: 24)
        defer { app.close() }
        try await app.expect("the cars") { $0.contains("● online") && $0.contains(make) }
        try await app.select(make)
        try app.tmux.sendKeys("e")
        try await app.expect("the form") { $0.contains("Change") && $0.contains(model) }
        try app.tmux.sendKeys("Tab")
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", newModel)
        try app.tmux.sendKeys("Enter")
        // Then the service holds it (its other root reads the same data)
        #expect(try await eventually { (try await car(root)["model"] as? String) == newModel })
        // And the request log says where it went: the key as a segment
        try app.tmux.sendKeys("i")
        try await app.expect("the request to Car/3") { $0.contains("/ks/Car/3") && !$0.contains("/ks/Car(3)") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// `--open 'Car/1/PersonCar'`: the path names car 1 by its key as a segment, as the service writes it; its
    /// ownerships open (as many as the service holds) with the car behind them, and Esc walks back to the car.
    @Test func a_path_naming_a_car_by_its_key_as_a_segment_opens_its_screens() async throws {
        let root = try #require(odatapyRoot)
        let segments = root.replacingOccurrences(of: "/odata/", with: "/ks/")
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "Car(1)?$expand=PersonCar", dialect: .v4))
        let held = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let (make, model) = (try #require(held["make"] as? String), try #require(held["model"] as? String))
        let owned = try #require(held["PersonCar"] as? [[String: Any]]).count
        #expect(owned > 0)
        let app = try Launch("browse \(segments) --open 'Car/1/PersonCar'", columns: 120, rows: 24)
        defer { app.close() }
        try await app.expect("car 1's ownerships, under it") {
            $0.contains("● online") && $0.contains("› \(make)") && $0.contains("1 of \(owned)")
        }
        try app.tmux.sendKeys("Escape")
        try await app.expect("car 1") { $0.contains("carID") && $0.contains(model) }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// `browse …/ks/Car/3`: a URL naming car 3 by its key as a segment, two levels below the service root, finds the
    /// root and opens the car over the list of cars.
    @Test func a_URL_naming_a_car_by_its_key_as_a_segment_opens_that_car() async throws {
        let root = try #require(odatapyRoot)
        let segments = root.replacingOccurrences(of: "/odata/", with: "/ks/")
        let held = try await car(root)
        let model = try #require(held["model"] as? String)
        let app = try Launch("browse \(segments)Car/3", columns: 120, rows: 24)
        defer { app.close() }
        try await app.expect("car 3") { $0.contains("● online") && $0.contains("carID") && $0.contains(model) }
        try app.tmux.sendKeys("Escape")
        try await app.expect("the cars") { $0.contains("Corolla") && $0.contains("Focus") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
