import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// How good or bad a value is, as a service we did not write says it (issue 33): odatapy's v4 service
/// (`.ci/independent/ownership_service.py`) annotates its inspections' verdicts with `UI.Criticality`, on the line
/// item's data field and on the property, by a path to the level each inspection holds. The built binary, with
/// colours off (`NO_COLOR`), marks each verdict by its level on the list and on the detail; a neutral one is not.
@Suite(
    .tags(.endToEnd),
    .serialized, .enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)"),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed")
)
struct IndependentCriticalityTests {
    typealias Launch = BrowserInTmuxTests.Launch

    @Test func verdicts_are_marked_by_the_level_the_service_gives_on_the_list_and_the_detail() async throws {
        let root = try #require(odatapyRoot)
        // The service's own $metadata says so, as the model reads it
        let metadata = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "$metadata", acceptsXML: true, dialect: .v4))
        let type = try #require(try EDMXParser.parse(metadata.body).entityType(ofSet: "Inspection"))
        #expect(type.ui.lineItem?.first?.criticality == .path("verdictCriticality"))
        #expect(type.properties.first { $0.name == "verdict" }?.criticality == .path("verdictCriticality"))
        // When the inspections are browsed with colours off
        let app = try Launch("browse \(root)Inspection", columns: 100, rows: 16, environment: "NO_COLOR=1 ")
        defer { app.close() }
        let screen = try await app.expect("the inspections") {
            $0.contains("● online") && $0.contains("Booked") && !$0.contains("loading…")
        }
        // Then the line item's columns head the list, and each verdict is marked by its level: negative, critical,
        // positive, and a neutral one not at all
        #expect(screen.contains("Verdict") && screen.contains("Car"), "\(screen)")
        for marked in ["✗ Brakes worn", "! Tyres near the limit", "✓ Passed"] {
            #expect(screen.contains(marked), "\(screen)")
        }
        let booked = try #require(screen.split(separator: "\n").first { $0.contains("Booked") })
        #expect(!booked.contains("✗") && !booked.contains("!") && !booked.contains("✓"), "\(booked)")
        // And the detail of the first marks its verdict by the property's own annotation
        try app.tmux.sendKeys("Enter")
        try await app.expect("the detail, its verdict marked") {
            $0.contains("Inspection detail")
                && $0.range(of: "verdict +✗ Brakes worn", options: .regularExpression) != nil
        }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// The chart the service declares for its inspections (`UI.Chart`, issue 33): `c` draws the mileage over the day
    /// of each inspection, titled as the service titles it, the first inspection's mileage as the service holds it.
    @Test func c_on_the_inspections_draws_the_chart_the_service_declares() async throws {
        let root = try #require(odatapyRoot)
        let first = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "Inspection(1)", dialect: .v4))
        guard case .entity(let inspection) = try PayloadDecoder(serviceRoot: root, dialect: .v4).decode(first.body),
            case .int(let mileage)? = inspection["mileage"]
        else {
            Issue.record("inspection 1 has no mileage: \(String(decoding: first.body, as: UTF8.self))")
            return
        }
        let app = try Launch("browse \(root)Inspection", columns: 100, rows: 20)
        defer { app.close() }
        try await app.expect("the inspections") { $0.contains("Booked") && !$0.contains("loading…") }
        try app.tmux.sendKeys("c")
        // (as the chart's legend writes it: digits in threes, by commas)
        var grouped = ""
        for (index, digit) in String(mileage).reversed().enumerated() {
            if index > 0, index % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        grouped = String(grouped.reversed())
        try await app.expect("the service's chart, at the first inspection") {
            $0.contains("Mileage at inspection") && $0.contains("mileage by inspectedOn") && $0.contains(grouped)
        }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
