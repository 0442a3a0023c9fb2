import CarDealerTestSupport
import DemoServer
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// The built-in service's function (issue 36), in both dialects, through the built binary in tmux: `!` on the cars
/// offers "Cars built before", Enter asks for its year, and the answer is the list the service itself answers for
/// that year (its count read back over HTTP).
@Suite(
    .tags(.endToEnd), .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct DemoOperationTests {
    typealias Launch = BrowserInTmuxTests.Launch

    @Test(arguments: [ODataDialect.v2, .v4])
    func bang_then_cars_built_before_a_year_lists_the_cars_the_service_answers(dialect: ODataDialect) async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-operations")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let root = dialect == .v4 ? server.version4URL : server.baseURL
        // What the service answers for 1990, asked here by hand
        let query =
            dialect == .v4
            ? "CarsBuiltBefore(year=@year)?@year=1990&$count=true&$top=0"
            : "CarsBuiltBefore?year=1990&$inlinecount=allpages&$top=0"
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + query, dialect: dialect))
        guard
            case .collection(let answer) = try PayloadDecoder(serviceRoot: root, dialect: dialect).decode(
                response.body),
            let expected = answer.count
        else {
            Issue.record("the service did not count its answer: \(String(decoding: response.body, as: UTF8.self))")
            return
        }
        #expect(expected > 0)
        let app = try Launch("browse \(root)Car", columns: 100, rows: 30)
        defer { app.close() }
        try await app.expect("the cars") { $0.contains("● online") && !$0.contains("loading…") }
        // When the function is chosen with a year
        try app.tmux.sendKeys("!")
        try await app.expect("the operations") { $0.contains("Of the service") && $0.contains("Cars built before") }
        try await app.select("Cars built before")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its year") { $0.contains("Year") && $0.contains("Enter saves") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "1990")
        try app.tmux.sendKeys("Enter")
        // Then its answer is listed, as many cars as the service counts
        try await app.expect("the service's answer") {
            $0.contains("Cars built before 1990") && $0.contains("1 of \(expected)") && !$0.contains("loading…")
        }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// A function of one car answering a value: `!` on car 1 offers "Maintenance cost", Enter asks for a year,
    /// and the answer is the one the service itself gives (read over HTTP), in both dialects.
    @Test(arguments: [ODataDialect.v2, .v4])
    func bang_on_a_car_then_maintenance_cost_shows_the_services_answer(dialect: ODataDialect) async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-value-function")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 200, dataPath: directory + "/demo.sqlite"))
        let root = dialect == .v4 ? server.version4URL : server.baseURL
        let app = try Launch("browse \(root)Car", columns: 100, rows: 30)
        defer { app.close() }
        try await app.expect("the cars") { $0.contains("● online") && !$0.contains("loading…") }
        // Car 1, and a year it cost something in, asked by hand (the first such year from 1990)
        func cost(in year: Int) async throws -> String {
            let asked = try await HTTPClientTransport(timeout: 10).send(
                TransportRequest(
                    url: root
                        + (dialect == .v4
                            ? "Car(1)/edmexampleModel.MaintenanceCost(year=@y)?@y=\(year)"
                            : "MaintenanceCost?carID=1&year=\(year)"),
                    dialect: dialect))
            let text = String(decoding: asked.body, as: UTF8.self)
            return text.firstMatch(of: /"?([0-9]+\.[0-9]+|[0-9]+)"?\}+$/).map { String($0.1) } ?? text
        }
        var year = 1990
        var number = try await cost(in: year)
        while Decimal(string: number) == 0, year < 2025 {
            year += 1
            number = try await cost(in: year)
        }
        #expect(Decimal(string: number).map { $0 > 0 } == true, "car 1 cost nothing in any year: \(number)")
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "filter carID = 1")
        try app.tmux.sendKeys("Enter")
        // (its row on screen, not only its count: `!` offers what acts on the row the cursor is on)
        let carOne = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "Car(1)" + (dialect == .v4 ? "" : "?$format=json"), dialect: dialect))
        guard case .entity(let held) = try PayloadDecoder(serviceRoot: root, dialect: dialect).decode(carOne.body),
            case .string(let model)? = held["model"]
        else {
            Issue.record("no car 1: \(String(decoding: carOne.body, as: UTF8.self))")
            return
        }
        try await app.expect("car 1") {
            $0.contains("1 of 1") && $0.contains(model) && !$0.contains("asking the service")
                && !$0.contains("loading…")
        }
        // When the function is chosen on it with a year
        try app.tmux.sendKeys("!")
        try await app.expect("the operations") { $0.contains("On ") && $0.contains("Maintenance cost") }
        try await app.select("Maintenance cost")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its year") { $0.contains("Year") && $0.contains("Enter saves") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", String(year))
        try app.tmux.sendKeys("Enter")
        // Then the answer is the service's (v4 sends the decimal as a JSON number: compared as numbers)
        let screen = try await app.expect("the answer") { screen in
            screen.contains("Maintenance cost \(year)")
                && screen.split(separator: "\n").contains { line in
                    // (grouped as a decimal of its scale is: `1,234.50`)
                    Decimal(string: line.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ""))
                        == Decimal(string: number)
                }
        }
        #expect(!screen.contains("loading…"), "\(screen)")
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
