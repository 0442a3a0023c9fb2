import CarDealerTestSupport
import DemoServer
import Foundation
import Testing

/// Issue 11, item 8: URLs that are not a service root, and what `cardealer browse` says or does with them.
@Suite(
    .tags(.endToEnd), .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct ServiceRootTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// The built-in service browsed by its URL, with no profile, v2 and v4 (issue 33): the screens it describes in
    /// its own `$metadata` (set names, columns, labels, the currency of a cost).
    @Test(arguments: [false, true])
    func the_service_browsed_by_URL_shows_the_screens_it_describes(version4: Bool) async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-described")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let root = version4 ? server.version4URL : server.baseURL
        let app = try Launch("browse \(root)", columns: 100, rows: 24)
        defer { app.close() }
        try await app.expect("the sets by their names") {
            $0.contains("People  (Person)") && $0.contains("Service records  (PersonCarMaintenance)")
        }
        try app.tmux.sendKeys("Enter")
        // In the order the service's UI.PresentationVariant gives: by last name
        let people = try await app.expect("the people") {
            $0.contains("Customer since") && $0.contains("● online") && $0.contains("1 of 30")
        }
        let lines = people.split(separator: "\n", omittingEmptySubsequences: false)
        let header = lines.dropFirst().first ?? ""
        let columns = ["Last name", "First name", "Customer since"].compactMap { header.range(of: $0)?.lowerBound }
        #expect(columns.count == 3 && columns == columns.sorted(), "\(people)")
        let lastNames = lines.dropFirst(2).prefix(6).map { $0.dropFirst().prefix { $0 != " " } }
        #expect(lastNames == lastNames.sorted(), "\(people)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("a person's detail, under the service's labels") {
            $0.contains("Social security number") && $0.contains("Customer since")
        }
        // Their cars, through the ownerships that link them (PersonCar holds only keys, a stamp and two to-one links)
        try await app.select("Cars")
        try app.tmux.sendKeys("Enter")
        try await app.expect("their cars") { $0.contains("› Cars") && $0.contains("Make") && $0.contains("1 of ") }
        try app.tmux.sendKeys("Escape")
        // The maintenance records: a cost in the currency the service names, with its decimals
        try app.tmux.sendKeys("Escape", "Escape")
        try await app.expect("the sets again") { $0.contains("People  (Person)") }
        try await app.select("Maintenance")
        try app.tmux.sendKeys("Enter")
        let maintenance = try await app.expect("the records") { $0.contains("Mileage") && $0.contains(" USD") }
        #expect(maintenance.range(of: #"\d\.\d\d USD"#, options: .regularExpression) != nil, "\(maintenance)")
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
        app.close()
        await server.stop()
    }

    @Test func a_URL_naming_an_entity_set_opens_that_set_under_the_service_root() async throws {
        // Given the built-in service, and a URL that names its Person set rather than the service root
        let directory = try BuiltProducts.temporaryDirectory("cardealer-root")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let app = try Launch("browse \(server.baseURL)Person")
        defer { app.close() }
        // Then the browser opens the Person list of that service (titled as the service names it), with its rows,
        // not an empty list or an error
        let screen = try await app.expect("the Person list") {
            $0.contains("People") && $0.contains("Last name") && $0.contains("● online") && $0.contains("1 of 30")
                && !$0.contains("loading…")
        }
        #expect(!screen.contains("HTTP 400"))
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
        // (the browser gone first: the server's shutdown waits for its connections)
        app.close()
        await server.stop()
    }

    @Test func a_URL_naming_an_entity_opens_it_over_its_set() async throws {
        // Given the built-in service, and a URL that names its car 2 (the seed's Ford Explorer)
        let directory = try BuiltProducts.temporaryDirectory("cardealer-root")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let app = try Launch("browse '\(server.version4URL)Car(2)'")
        defer { app.close() }
        // Then the browser opens that car, and Esc shows the cars
        try await app.expect("car 2") {
            $0.contains("Car number") && $0.contains("Explorer") && $0.contains("● online")
        }
        try app.tmux.sendKeys("Escape")
        try await app.expect("the cars") { $0.contains("Cars") && $0.contains("1 of ") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
        app.close()
        await server.stop()
    }

    @Test func a_URL_that_is_not_a_service_root_says_what_a_service_root_is() async throws {
        // Given the built-in service, and a URL under it with no $metadata
        let directory = try BuiltProducts.temporaryDirectory("cardealer-root")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let origin = server.baseURL.replacingOccurrences(of: "CarDealer.svc/", with: "")
        let app = try Launch("browse \(origin)no/such/root/", columns: 200, rows: 30)
        defer { app.close() }
        // Then it ends with a sentence naming the failure and asking whether the URL is a service root
        let screen = try await app.expect("the sentence and the exit status") {
            $0.range(of: "EXIT=[0-9]", options: .regularExpression) != nil
        }
        // (the pane wraps long lines: read the sentence as one)
        let text = screen.replacingOccurrences(of: "\n", with: "")
        #expect(text.contains("HTTP 404"), "\(screen)")
        #expect(text.contains("the service root?"), "\(screen)")
        #expect(screen.contains("EXIT=1") || screen.contains("EXIT=64"), "\(screen)")
        app.close()
        await server.stop()
    }
}
