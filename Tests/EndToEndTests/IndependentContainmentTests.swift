import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// Containment on a service we did not write (issue 37): odatapy serves a person's trips inside the person
/// (`ContainsTarget`, no entity set of trips; `.ci/independent/ownership_service.py`). Alice's first trip and Bob's
/// have the same key, 1, and are different trips: the built binary shows each under its person, each by the path to
/// it. (odatapy lists and expands contained entities, but answers 400 for one addressed by key and refuses writes
/// to them: those are tried against the built-in service, `DemoContainmentTests`.)
@Suite(
    .tags(.endToEnd),
    .serialized, .enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)"),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed")
)
struct IndependentContainmentTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// The names of person `person`'s trips as the service holds them, by key.
    func trips(_ root: String, person: Int) async throws -> [Int: String] {
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "Person(\(person))/Trips", dialect: .v4))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        var held: [Int: String] = [:]
        for row in try #require(object["value"] as? [[String: Any]]) {
            if let key = row["tripID"] as? Int, let name = row["name"] as? String { held[key] = name }
        }
        return held
    }

    @Test func two_peoples_trips_of_one_key_are_each_shown_under_their_person() async throws {
        let root = try #require(odatapyRoot)
        let alice = try await trips(root, person: 1)
        let bob = try await trips(root, person: 2)
        // (the service's own data: the same key in two people, two trips)
        let (alices, bobs) = (try #require(alice[1]), try #require(bob[1]))
        #expect(alices != bobs)
        let app = try Launch("browse \(root) --open 'Person(1)/Trips'", columns: 140, rows: 24)
        defer { app.close() }
        try await app.expect("Alice's trips") {
            $0.contains("● online") && alice.values.allSatisfy($0.contains) && $0.contains("1 of \(alice.count)")
                && !$0.contains(bobs)
        }
        try await app.select(alices)
        try app.tmux.sendKeys("Enter")
        try await app.expect("her trip 1, keyed under her") { $0.contains(alices) && $0.contains("Person(1)/Trips(1)") }
        // Back to the people, and Bob's trips
        try app.tmux.sendKeys("Escape")
        try await app.expect("her trips") { $0.contains("1 of \(alice.count)") && $0.contains(alices) }
        try app.tmux.sendKeys("Escape")
        try await app.expect("the people") { $0.contains("Bob") && $0.contains("Carol") && !$0.contains(alices) }
        try await app.select("Bob")
        try app.tmux.sendKeys("Enter")
        try await app.expect("Bob") { $0.contains("Jones") && $0.contains("Trips") }
        try await app.select("Trips")
        try app.tmux.sendKeys("Enter")
        try await app.expect("Bob's trips, not Alice's") {
            $0.contains(bobs) && !$0.contains(alices) && $0.contains("1 of \(bob.count)")
        }
        try await app.select(bobs)
        try app.tmux.sendKeys("Enter")
        try await app.expect("his trip 1, keyed under him") { $0.contains(bobs) && $0.contains("Person(2)/Trips(1)") }
        // Alice's is still hers
        try app.tmux.sendKeys("Escape")
        #expect(try await trips(root, person: 1) == alice)
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
