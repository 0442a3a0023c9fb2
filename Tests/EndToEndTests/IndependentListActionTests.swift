import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// Actions on a list and on the service of a server we did not write (issue 36), through the built binary in tmux:
/// odatapy's v4 service (`.ci/independent/ownership_service.py`) offers `AddMake(name, country)` through an action
/// import and `RenameMake(old, new)` bound to the list of cars. Each is chosen with `!`, given its parameters, sent
/// with `y` through the outbox, and its effect checked on the service over HTTP; the list of cars on screen shows the
/// renamed make once the action has run. The makes and cars are the test's own (new each run).
@Suite(
    .tags(.endToEnd),
    .serialized, .enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)"),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed")
)
struct IndependentListActionTests {
    typealias Launch = BrowserInTmuxTests.Launch

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await HTTPClientTransport(timeout: 10).send(request)
    }

    /// The values of `property` of the entities at `path`, as the service holds them.
    func values(_ root: String, _ path: String, _ property: String) async throws -> [ODataValue] {
        let response = try await send(TransportRequest(url: root + path, dialect: .v4))
        switch try PayloadDecoder(serviceRoot: root, dialect: .v4).decode(response.body) {
        case .collection(let listed): return listed.entities.compactMap { $0[property] }
        case .entity(let entity): return entity[property].map { [$0] } ?? []
        default: return []
        }
    }

    /// Types `text` into the form's field, then Tab to the next.
    func type(_ app: Launch, _ texts: [String]) throws {
        for (index, text) in texts.enumerated() {
            try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", text)
            if index < texts.count - 1 { try app.tmux.sendKeys("Tab") }
        }
        try app.tmux.sendKeys("Enter")
    }

    @Test func an_action_on_the_service_adds_a_make_there() async throws {
        let root = try #require(odatapyRoot)
        let name = "Lada \(Int.random(in: 10_000...99_999))"
        let app = try Launch("browse \(root)", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the entity sets") { $0.contains("● online") && $0.contains("Make") }
        try app.tmux.sendKeys("!")
        try await app.expect("the service's operations") { $0.contains("Of the service") && $0.contains("AddMake") }
        try await app.select("AddMake")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its parameters") { $0.contains("country") && $0.contains("Enter saves") }
        try type(app, [name, "Russia"])
        try await app.expect("the question") { $0.contains("AddMake on the service") && $0.contains("y sends it") }
        try app.tmux.sendKeys("y")
        // Then odatapy holds the make, once
        let filter = "Make?$filter=name%20eq%20'\(name.replacingOccurrences(of: " ", with: "%20"))'"
        #expect(try await eventually { try await values(root, filter, "country") == [.string("Russia")] })
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await values(root, filter, "country").count == 1)
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test func the_list_of_makes_shows_one_added_by_an_action_on_the_service_as_its_side_effects_say() async throws {
        let root = try #require(odatapyRoot)
        let name = "Zaporozhets \(Int.random(in: 10_000...99_999))"
        // Given the makes on screen, just read (fresh)
        let app = try Launch("browse \(root)Make", columns: 120, rows: 40)
        defer { app.close() }
        try await app.expect("the makes") { $0.contains("● online") && $0.contains("Czechia") }
        // When AddMake is run from the palette
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "AddMake")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its parameters") { $0.contains("country") && $0.contains("Enter saves") }
        try type(app, [name, "Ukraine"])
        try await app.expect("the question") { $0.contains("AddMake on the service") && $0.contains("y sends it") }
        try app.tmux.sendKeys("y")
        let filter = "Make?$filter=name%20eq%20'\(name.replacingOccurrences(of: " ", with: "%20"))'"
        #expect(try await eventually { try await values(root, filter, "country") == [.string("Ukraine")] })
        // Then, back on the makes, the new one is listed: its side effects (`/Ownership.Container/Make`) left the
        // list not fresh, so it was read again
        try app.tmux.sendKeys("Escape")
        try await app.expect("the new make in the list") { $0.contains(name) && $0.contains("Ukraine") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test func an_action_on_the_list_of_cars_renames_a_make_and_the_list_shows_it() async throws {
        let root = try #require(odatapyRoot)
        let number = Int.random(in: 10_000...99_999)
        var create = TransportRequest(method: .post, url: root + "Car", dialect: .v4)
        create.headers["Content-Type"] = "application/json"
        create.body = Array(#"{"carID":\#(number),"make":"Moskvich \#(number)","model":"412"}"#.utf8)
        #expect(try await send(create).status == 201)
        let app = try Launch("browse \(root)Car", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the cars") { $0.contains("● online") && !$0.contains("loading…") }
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "filter carID = \(number)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the test's car") { $0.contains("Moskvich \(number)") && $0.contains("1 of 1") }
        // When the set's RenameMake is chosen with the car's make and a new one, and sent
        try app.tmux.sendKeys("!")
        try await app.expect("the set's operations") { $0.contains("On all Car") && $0.contains("RenameMake") }
        try await app.select("RenameMake")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its parameters") { $0.contains("old") && $0.contains("Enter saves") }
        try type(app, ["Moskvich \(number)", "Volga \(number)"])
        try await app.expect("the question") { $0.contains("RenameMake on all Car") && $0.contains("y sends it") }
        try app.tmux.sendKeys("y")
        // Then odatapy holds the new make, and the list on screen shows it
        #expect(
            try await eventually { try await values(root, "Car(\(number))", "make") == [.string("Volga \(number)")] })
        try await app.expect("the renamed car") { $0.contains("Volga \(number)") && !$0.contains("Moskvich \(number)") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
