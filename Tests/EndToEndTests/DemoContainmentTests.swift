import CarDealerTestSupport
import DemoServer
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// Containment on the built-in service (issue 37), through the built binary in tmux: the v4 root keeps a car's
/// options inside it (`Car(2)/Options(9)`, no entity set of their own). An option added under a car is posted to
/// the car's `Options`, changed and deleted at the path through its car, and each outcome is read back over HTTP on
/// the service's side, on a data file of the test's own.
@Suite(
    .tags(.endToEnd), .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct DemoContainmentTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// The options of car `car` the service at `root` holds, by name, with their prices.
    static func options(_ root: String, car: Int) async throws -> [String: Double] {
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "Car(\(car))/Options", dialect: .v4))
        #expect(response.status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        var held: [String: Double] = [:]
        for row in try #require(object["value"] as? [[String: Any]]) {
            if let name = row["name"] as? String { held[name] = (row["price"] as? NSNumber)?.doubleValue ?? -1 }
        }
        return held
    }

    @Test func an_option_is_added_changed_and_deleted_through_its_car() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-containment")
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 20, dataPath: directory + "/demo.sqlite"))
        let app = try Launch("browse \(server.version4URL) --open 'Car(2)/Options'", columns: 160, rows: 30)
        defer {
            app.close()
            Task {
                await server.stop()
                try? FileManager.default.removeItem(atPath: directory)
            }
        }
        let before = try await Self.options(server.version4URL, car: 2)
        let first = try #require(before.keys.sorted().first)
        try await app.expect("car 2's options, under it") {
            $0.contains("● online") && $0.contains("Ford · Explorer") && $0.contains(first)
                && $0.contains("1 of \(before.count)")
        }
        // Given a new option typed under the car
        try app.tmux.sendKeys("a")
        try await app.expect("the form") { $0.contains("New in Options") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Heated seats")
        try app.tmux.sendKeys("Tab")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "350")
        try app.tmux.sendKeys("Enter")
        // Then the car holds it, and the browser lists it under its key through the car
        #expect(try await eventually { try await Self.options(server.version4URL, car: 2)["Heated seats"] == 350 })
        try await app.expect("it listed, settled") { $0.contains("Heated seats") && !$0.contains("pending") }
        // When its price is changed on its screen
        try await app.select("Heated seats")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the option") { $0.contains("Option number") && $0.contains("Car(2)/Options(") }
        try app.tmux.sendKeys("e")
        try await app.expect("the form") { $0.contains("Change") }
        try app.tmux.sendKeys("Tab")
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "400")
        // (saved with Ctrl-S, as the form offers: a key here, not the terminal's flow control)
        try app.tmux.sendKeys("C-s")
        #expect(try await eventually { try await Self.options(server.version4URL, car: 2)["Heated seats"] == 400 })
        // And deleted from the car's list
        try app.tmux.sendKeys("Escape")
        try await app.expect("the list again") { $0.contains("400.00 USD") && $0.contains(first) }
        try await app.select("Heated seats")
        try app.tmux.sendKeys("x")
        try await app.expect("the question") { $0.contains("y deletes it") }
        try app.tmux.sendKeys("y")
        #expect(try await eventually { try await Self.options(server.version4URL, car: 2)["Heated seats"] == nil })
        // The requests went through the car: none named a set of options
        try app.tmux.sendKeys("i")
        try await app.expect("the writes through car 2") {
            let lines = $0.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            return lines.contains { $0.contains(" 201 ") && $0.hasSuffix("/Car(2)/Options") }
                && lines.filter { $0.contains(" 204 ") && $0.contains("/Car(2)/Options(") }.count == 2
                && !$0.contains("/CarOption")
        }
        #expect(try await Self.options(server.version4URL, car: 2).count == before.count)
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
