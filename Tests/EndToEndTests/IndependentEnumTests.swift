import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// v4 enums from a service we did not write (issue 37): odatapy's inspections (`.ci/independent/ownership_service.py`)
/// have a kind (`InspectionKind`) and the checks done (`Checks`, flags). The built binary shows flags as a list,
/// filters by a member with the literal odatapy takes (`Ownership.InspectionKind'Annual'`; a bare string is a 400
/// there), refuses a member the type does not have in the form, and sends flags as the service spells them (read
/// back over HTTP). Their station (`Edm.GeographyPoint`) and route (`Edm.GeographyLineString`) show as a place and
/// a shape, read from what the service holds.
@Suite(
    .tags(.endToEnd),
    .serialized, .enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)"),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed")
)
struct IndependentEnumTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// Presses Tab until the form's focus is on the field labelled `label` (`j` would type into a field).
    func focus(_ label: String, in app: Launch) async throws {
        let focused = { (screen: String) in screen.range(of: "▌ *\(label) ", options: .regularExpression) != nil }
        for _ in 0..<12 {
            if focused(try await app.tmux.captured()) { return }
            try app.tmux.sendKeys("Tab")
            _ = try await app.tmux.waitFor(timeout: .milliseconds(300), focused)
        }
        Issue.record("the focus never reached \(label): \(try app.tmux.capture())")
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await HTTPClientTransport(timeout: 10).send(request)
    }

    @Test func enum_members_are_shown_filtered_by_and_sent_as_the_service_spells_them() async throws {
        let root = try #require(odatapyRoot)
        let metadata = try await send(TransportRequest(url: root + "$metadata", acceptsXML: true, dialect: .v4))
        let type = try #require(try EDMXParser.parse(metadata.body).entityType(ofSet: "Inspection"))
        #expect(
            type.properties.first { $0.name == "kind" }?.enumeration?.members.map(\.name) == [
                "Annual", "Safety", "Emissions",
            ])
        #expect(type.properties.first { $0.name == "checks" }?.enumeration?.isFlags == true)
        // The filter as the browser writes it is one odatapy takes, and answers with the annual inspections (the
        // list below is small enough to be answered from the cache, so the service is asked here)
        let annual = try #require(
            QueryFilter.member("kind", .eq, "Annual", enumType: "Ownership.InspectionKind").text(dialect: .v4))
        let asked = try await send(
            TransportRequest(
                url: root + "Inspection?$select=inspectionID&$filter=" + PercentEncoding.encodeQueryValue(annual),
                dialect: .v4))
        #expect(asked.status == 200, "\(String(decoding: asked.body, as: UTF8.self))")
        guard
            case .collection(let answered) = try PayloadDecoder(serviceRoot: root, dialect: .v4).decode(asked.body)
        else {
            Issue.record("no collection: \(String(decoding: asked.body, as: UTF8.self))")
            return
        }
        #expect(answered.entities.map { $0["inspectionID"] } == [.int(1), .int(4)])
        let app = try Launch("browse \(root)Inspection", columns: 110, rows: 20)
        defer { app.close() }
        try await app.expect("the inspections") { $0.contains("Booked") && !$0.contains("loading…") }
        // A filter by a member, named without regard to case, answered by the service
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "filter kind = annual")
        try app.tmux.sendKeys("Enter")
        let filtered = try await app.expect("the annual inspections") {
            $0.contains("Brakes worn") && !$0.contains("Passed") && !$0.contains("asking the service")
        }
        #expect(filtered.contains("Booked") && !filtered.contains("Tyres near the limit"), "\(filtered)")
        // The third inspection's checks, as a list, on its detail
        try app.tmux.sendKeys("Escape")
        try await app.expect("all of them again") { $0.contains("Passed") && $0.contains("Tyres near") }
        try await app.select("✓ Passed")
        try app.tmux.sendKeys("d")
        // (as the service holds them now: a run before this one may have changed the checks)
        let third = try await send(TransportRequest(url: root + "Inspection(3)", dialect: .v4))
        guard case .entity(let held) = try PayloadDecoder(serviceRoot: root, dialect: .v4).decode(third.body),
            case .string(let heldChecks)? = held["checks"], let station = held["station"].flatMap(GeoShape.init),
            case .point = station
        else {
            Issue.record("inspection 3 is not as seeded: \(String(decoding: third.body, as: UTF8.self))")
            return
        }
        let listed = heldChecks.split(separator: ",").joined(separator: ", ")
        try await app.expect("its checks, listed") { $0.contains(listed) && $0.contains("Emissions") }
        // And its station as a place and its route as a shape
        let detail = try await app.expect("its station and route") { $0.contains(station.description) }
        #expect(detail.contains("LineString, 3 points"), "\(detail)")
        try app.tmux.sendKeys("Escape")
        // A member the type does not have is refused in the form; flags typed in any case and order are sent
        // in the service's spelling
        try app.tmux.sendKeys("e")
        try await app.expect("the form") { $0.contains("Enter saves") }
        try await focus("kind", in: app)
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Bogus")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the refusal") { $0.contains("kind takes one of Annual, Safety, Emissions") }
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "emissions")
        try await focus("checks", in: app)
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "tyres, brakes")
        try app.tmux.sendKeys("Enter")
        var checks: ODataValue?
        for _ in 0..<100 {
            let response = try await send(TransportRequest(url: root + "Inspection(3)", dialect: .v4))
            if case .entity(let inspection) = try PayloadDecoder(serviceRoot: root, dialect: .v4).decode(
                response.body)
            {
                checks = inspection["checks"]
            }
            if checks == .string("Brakes,Tyres") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(checks == .string("Brakes,Tyres"))
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// An operation's enum parameter: odatapy's `InspectionsOfKind(kind)` asked from `!` in the built binary, the
    /// member typed in any case and checked against the type's members in the form, the answer the service's own.
    @Test func a_function_with_an_enum_parameter_is_asked_with_a_member_and_answers_its_list() async throws {
        let root = try #require(odatapyRoot)
        // The service's own answer for the member, asked by hand with the literal the browser writes
        let asked = try await send(
            TransportRequest(
                url: root + "InspectionsOfKind(kind=@kind)?@kind=Ownership.InspectionKind'Safety'&$select=verdict",
                dialect: .v4))
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(asked.body)) as? [String: Any])
        let verdicts = ((answer["value"] as? [[String: Any]]) ?? []).compactMap { $0["verdict"] as? String }
        #expect(!verdicts.isEmpty, "\(String(decoding: asked.body, as: UTF8.self))")
        let app = try Launch("browse \(root)Inspection", columns: 110, rows: 20)
        defer { app.close() }
        try await app.expect("the inspections") { $0.contains("● online") && !$0.contains("loading…") }
        try app.tmux.sendKeys("!")
        try await app.expect("the operations") { $0.contains("InspectionsOfKind") }
        try await app.select("InspectionsOfKind")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its parameter") { $0.contains("kind") && $0.contains("Enter saves") }
        // A member the type does not have is refused in the form, naming those it has
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "bogus")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the refusal") { $0.contains("kind takes one of Annual, Safety, Emissions") }
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "safety")
        try app.tmux.sendKeys("Enter")
        let screen = try await app.expect("the function's answer") {
            $0.contains("InspectionsOfKind Safety") && $0.contains("of \(verdicts.count)") && !$0.contains("loading…")
        }
        #expect(verdicts.allSatisfy { screen.contains($0) }, "\(screen)")
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
