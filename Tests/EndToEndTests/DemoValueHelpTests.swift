import CarDealerTestSupport
import DemoServer
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// The built-in service's value help (issue 33), in both dialects, through the built binary in tmux: its
/// `$metadata` gives a car's make a `Common.ValueList` over its `Make` set; F4 on the make in a car's form lists
/// the makes, Enter takes one, and saving sends it (read back over HTTP).
@Suite(
    .tags(.endToEnd), .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct DemoValueHelpTests {
    typealias Launch = BrowserInTmuxTests.Launch

    @Test(arguments: [ODataDialect.v2, .v4])
    func f4_on_a_cars_make_lists_the_makes_and_the_chosen_one_is_sent(dialect: ODataDialect) async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-value-help")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        defer { Task { await server.stop() } }
        let root = dialect == .v4 ? server.version4URL : server.baseURL
        let app = try Launch("browse \(root)Car", columns: 100, rows: 24)
        defer { app.close() }
        try await app.expect("the cars") { $0.contains("● online") && !$0.contains("loading…") }
        // Given car 2, the seed's Ford Explorer
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "filter carID = 2")
        try app.tmux.sendKeys("Enter")
        try await app.expect("car 2") { $0.contains("Explorer") && !$0.contains("asking the service") }
        // When its form is opened (the make is the first field that can be typed) and F4 pressed
        try app.tmux.sendKeys("e")
        try await app.expect("the form, offering value help") { $0.contains("F4 lists values") }
        try app.tmux.sendKeys("F4")
        // Then the service's makes are listed, in its order, and Enter takes one
        try await app.expect("the makes") {
            $0.contains("Makes") && $0.contains("BMW") && $0.contains("Citroën") && $0.contains("Enter takes it")
        }
        try await app.select("Škoda")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the make taken") { $0.contains("Taken from the value help") && $0.contains("Škoda") }
        try app.tmux.sendKeys("Enter")
        // And the service holds it
        var held: ODataValue?
        for _ in 0..<100 {
            let response = try await HTTPClientTransport(timeout: 10).send(
                TransportRequest(url: root + "Car(2)", dialect: dialect))
            if case .entity(let car) = try PayloadDecoder(serviceRoot: root, dialect: dialect).decode(
                response.body)
            {
                held = car["make"]
            }
            if held == .string("Škoda") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(held == .string("Škoda"))
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
