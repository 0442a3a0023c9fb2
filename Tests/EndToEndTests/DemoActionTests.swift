import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// The built-in service's action (issue 36), in both dialects, through the built binary in tmux: `!` on a person's
/// car offers "Record a standard service", Enter asks for the mileage, `y` queues it, and once the service has run
/// it the car's maintenance (already seen, so cached and fresh) shows the new record, because the action's
/// `Common.SideEffects` named it. The record is checked on the service over HTTP.
@Suite(
    .tags(.endToEnd), .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct DemoActionTests {
    typealias Launch = BrowserInTmuxTests.Launch

    @Test(arguments: [ODataDialect.v2, .v4])
    func recording_a_service_on_a_car_shows_it_in_the_maintenance_seen_before(dialect: ODataDialect) async throws {
        let app = try Launch("--people 30" + (dialect == .v4 ? " --odata-version 4" : ""), columns: 110, rows: 30)
        defer { app.close() }
        try await app.expect("the people") { $0.contains("Customer since") && $0.contains("● online") }
        // The built-in service's address, from the session's log, to ask it over HTTP as another client would
        let log = try String(contentsOfFile: app.directory + "/state/cardealer/cardealer.log", encoding: .utf8)
        let port = try #require(log.firstMatch(of: /listening on 127\.0\.0\.1:(\d+)/).map { String($0.1) })
        let root = "http://127.0.0.1:\(port)/CarDealer.svc/"
        let (car, ownership, person) = try await DemoOwnerships.latest(root: root)
        func recordCount() async throws -> Int? {
            let asked = try await HTTPClientTransport(timeout: 10).send(
                TransportRequest(url: root + "PersonCar(\(ownership))/PersonCarMaintenance/$count"))
            return Int(String(decoding: asked.body, as: UTF8.self))
        }
        let before = try #require(try await recordCount())
        let held = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "Car(\(car))?$format=json"))
        guard case .entity(let carEntity) = try PayloadDecoder(serviceRoot: root).decode(held.body),
            case .string(let make)? = carEntity["make"], case .string(let model)? = carEntity["model"]
        else {
            Issue.record("no car \(car): \(String(decoding: held.body, as: UTF8.self))")
            return
        }
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "filter personID = \(person)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the person") { $0.contains("1 of 1") && !$0.contains("loading…") }
        // Given the person's car and its maintenance, seen once
        try app.tmux.sendKeys("Enter")
        try await app.expect("the person's cars") { $0.contains(model) && !$0.contains("loading…") }
        try await app.select(make)
        try app.tmux.sendKeys("Enter")
        try await app.expect("its maintenance") { $0.contains("of \(before)") && !$0.contains("loading…") }
        #expect(!(try app.tmux.capture()).contains("Standard service"))
        try app.tmux.sendKeys("Escape")
        try await app.expect("the cars again") { $0.contains(model) && !$0.contains("Mileage") }
        // When the action is chosen on the car with a mileage, and sent
        try app.tmux.sendKeys("!")
        try await app.expect("the operations") { $0.contains("Record a standard service") }
        try await app.select("Record a standard service")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its mileage") { $0.contains("Mileage") && $0.contains("Enter saves") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "424242")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the question") { $0.contains("y sends it") }
        try app.tmux.sendKeys("y")
        // Then the service holds one more record for the ownership
        #expect(try await eventually { try await recordCount() == before + 1 })
        // And the maintenance, entered again, shows it: read again because the action said it changes it
        try await app.expect("the cars") { $0.contains(model) && !$0.contains("y sends it") }
        try app.tmux.sendKeys("Enter")
        try await app.expect("the new record") {
            $0.contains("Standard service") && $0.contains("424,242") && $0.contains("of \(before + 1)")
        }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
