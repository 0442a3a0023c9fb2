import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// An action's `Common.SideEffects` on a service we did not write (issue 36): odatapy's v4 service
/// (`.ci/independent/ownership_service.py`) declares `RegisterOwner(personID)` bound to a car, whose side effects
/// name the car's ownerships (`car/PersonCar`). Through the built binary in tmux: a car's ownerships, seen empty and
/// so cached fresh, show the new owner once the action has run; the ownership is checked on the service over HTTP.
/// The car and the person are the test's own (no other test touches them).
@Suite(
    .tags(.endToEnd),
    .serialized, .enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)"),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed")
)
struct IndependentSideEffectsTests {
    typealias Launch = BrowserInTmuxTests.Launch

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await HTTPClientTransport(timeout: 10).send(request)
    }

    func post(_ root: String, _ path: String, _ body: String) async throws -> Int {
        var create = TransportRequest(method: .post, url: root + path, dialect: .v4)
        create.headers["Content-Type"] = "application/json"
        create.body = Array(body.utf8)
        return try await send(create).status
    }

    @Test func the_owners_a_car_action_adds_show_in_the_ownerships_seen_before() async throws {
        let root = try #require(odatapyRoot)
        let metadata = try await send(TransportRequest(url: root + "$metadata", acceptsXML: true, dialect: .v4))
        let register = try #require(
            try EDMXParser.parse(metadata.body).operations(boundTo: "Ownership.Car").first {
                $0.name == "Ownership.RegisterOwner"
            })
        #expect(register.sideEffects?.navigationPaths == [["PersonCar"]])
        // Given a car and a person of the test's own (new each run: the service may outlive a run)
        let number = Int.random(in: 10_000...99_999)
        #expect(try await post(root, "Car", #"{"carID":\#(number),"make":"Lada \#(number)","model":"Niva"}"#) == 201)
        #expect(
            try await post(root, "Person", #"{"personID":\#(number),"firstName":"Olga","lastName":"N\#(number)"}"#)
                == 201)
        func owners() async throws -> Int64 {
            let response = try await send(
                TransportRequest(url: root + "Car(\(number))/PersonCar?$count=true&$top=0", dialect: .v4))
            guard
                case .collection(let listed) = try PayloadDecoder(serviceRoot: root, dialect: .v4).decode(
                    response.body)
            else { return -1 }
            return listed.count ?? -1
        }
        #expect(try await owners() == 0)
        let app = try Launch("browse \(root)Car", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the cars") { $0.contains("● online") && !$0.contains("loading…") }
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "filter carID = \(number)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the car") { $0.contains("Lada \(number)") && $0.contains("1 of 1") }
        // And its ownerships seen, none yet
        try app.tmux.sendKeys("Enter")
        try await app.expect("the car's fields") { $0.contains("Niva") && $0.contains("PersonCar") }
        try await app.select("PersonCar")
        try app.tmux.sendKeys("Enter")
        try await app.expect("no ownerships") { $0.contains("(none)") && !$0.contains("loading…") }
        try app.tmux.sendKeys("Escape")
        try await app.expect("the car's fields again") { $0.contains("Niva") && !$0.contains("(none)") }
        // When RegisterOwner is invoked on it with the person, and sent
        try app.tmux.sendKeys("!")
        try await app.expect("the operations") { $0.contains("RegisterOwner") }
        try await app.select("RegisterOwner")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its parameter") { $0.contains("personID") && $0.contains("Enter saves") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", String(number))
        try app.tmux.sendKeys("Enter")
        try await app.expect("the question") { $0.contains("y sends it") }
        try app.tmux.sendKeys("y")
        // Then odatapy holds the ownership
        #expect(try await eventually { try await owners() == 1 })
        // And the car's ownerships, entered again, show it: read again because the action said they change
        try await app.expect("the car's fields after") { $0.contains("Niva") && !$0.contains("y sends it") }
        try await app.select("PersonCar")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the new ownership") {
            $0.contains("1 of 1") && !$0.contains("(none)") && !$0.contains("loading…")
        }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
