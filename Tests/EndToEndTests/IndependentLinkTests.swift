import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// odatapy's v4 service of people, cars and ownerships (`.ci/independent/ownership_service.py`), when
/// `.ci/checks/30-independent-writes.sh` started one.
let odatapyRoot = ProcessInfo.processInfo.environment["CARDEALER_ODATAPY_ROOT"]

/// Removing a car from a person's cars on a server we did not write (odatapy, PyPI: its in-memory processor, weak
/// ETags that every change must match): the ownership goes and the car stays, for its other owners (issue 32). Each
/// test works on rows no other test touches: the service runs once for the whole check.
@Suite(
    .tags(.endToEnd),
    .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"),
    .enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)")
)
struct IndependentLinkTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// The display profile that hops from people to their cars through `PersonCar`, written for the test.
    static func profile(in directory: String) throws -> String {
        let path = directory + "/ownership.profile.json"
        let text = """
            {"root": "Person", "sets": {
              "Person": {"title": "People", "row": "{lastName}, {firstName}", "orderBy": ["lastName", "firstName"],
                "search": ["lastName", "firstName"], "columns": [{"title": "Name", "value": "{lastName}, {firstName}"}],
                "drill": {"path": ["PersonCar", "Car"], "title": "Cars"}},
              "Car": {"title": "Cars", "row": "{make} {model}", "orderBy": ["make", "model"],
                "columns": [{"title": "Make", "value": "{make}", "width": 14}, {"title": "Model", "value": "{model}"}]},
              "PersonCar": {"title": "Ownerships", "row": "Ownership {personCarID}"}}}
            """
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The status of `GET path` on the service, past the browser.
    func status(_ path: String) async throws -> Int {
        let root = try #require(odatapyRoot)
        return try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: root + path)).status
    }

    /// The browser on the people, drilled into `person`'s cars, the cursor on the row showing `car`.
    func cars(of person: String, on car: String) async throws -> Launch {
        let root = try #require(odatapyRoot)
        let directory = try BuiltProducts.temporaryDirectory("independent-links")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let profile = try Self.profile(in: directory)
        let app = try Launch("browse \(root)Person --profile \(profile)", columns: 130, rows: 20)
        // (the profile is read at start: it may go once the list shows)
        try await app.expect("the people") { $0.contains(person) && $0.contains("● online") }
        try app.tmux.sendKeys("/")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", String(person.prefix(5)))
        try app.tmux.sendKeys("Enter", "Enter")
        try await app.expect("their cars") { $0.contains("Cars") && $0.contains(car) && $0.contains("Model") }
        while try await app.tmux.captured().split(separator: "\n").first(where: { $0.hasPrefix("▌") })?.contains(car)
            != true
        {
            try app.tmux.sendKeys("j")
            try await Task.sleep(for: .milliseconds(100))
        }
        return app
    }

    @Test func x_on_a_car_two_people_own_ends_one_ownership_and_the_car_stays() async throws {
        // Given Alice's cars, the cursor on the Corolla she owns with Bob (ownerships 1 and 2)
        let app = try await cars(of: "Smith, Alice", on: "Corolla")
        defer { app.close() }
        #expect(try await status("PersonCar(1)") == 200)
        // When x is pressed and answered yes
        try app.tmux.sendKeys("x")
        try await app.expect("the question") {
            $0.contains("“Smith, Alice” no longer has “Toyota Corolla”") && $0.contains("y removes the link")
        }
        try app.tmux.sendKeys("y")
        // Then the row leaves her cars, and on the service her ownership is gone while the car and Bob's stay
        try await app.expect("the Corolla gone from her cars") { !$0.contains("Corolla") && !$0.contains("pending") }
        #expect(try await eventually { try await status("PersonCar(1)") == 404 })
        #expect(try await status("Car(1)") == 200)
        #expect(try await status("PersonCar(2)") == 200)
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test func delete_entity_deletes_the_car_itself() async throws {
        // Given Carol's cars, the cursor on her Tesla
        let app = try await cars(of: "White, Carol", on: "Model 3")
        defer { app.close() }
        #expect(try await status("Car(4)") == 200)
        // When :delete-entity is run and answered yes
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "delete-entity")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the question") {
            $0.contains("Delete “Tesla Model 3” itself, for every Person it belongs to") && $0.contains("y deletes it")
        }
        try app.tmux.sendKeys("y")
        // Then the car is gone from the service
        try await app.expect("the Tesla gone from her cars") { !$0.contains("Model 3") && !$0.contains("pending") }
        #expect(try await eventually { try await status("Car(4)") == 404 })
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// `a` in the person's cars: the car's key, make and model, and the ownership's key when given; then Enter.
    func add(_ app: Launch, car: Int, make: String, model: String, ownership: Int?) async throws {
        try app.tmux.sendKeys("a")
        try await app.expect("the new car's form") { $0.contains("New in Cars") && $0.contains("personCarID") }
        try app.tmux.sendKeys("BTab")
        for (index, text) in ["\(car)", make, model, ownership.map(String.init) ?? ""].enumerated() {
            if index > 0 { try app.tmux.sendKeys("Tab") }
            try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", text)
        }
        try app.tmux.sendKeys("Enter")
    }

    @Test func a_car_added_with_its_ownerships_key_is_made_and_linked_on_the_service() async throws {
        let app = try await cars(of: "Jones, Bob", on: "Corolla")
        defer { app.close() }
        // When a car is added with the key odatapy wants for the ownership too
        try await add(app, car: 30, make: "Lada", model: "Niva", ownership: 31)
        // Then it shows, settled, and the service has the ownership linking it
        try await app.expect("the new car, settled") { $0.contains("Niva") && !$0.contains("pending") }
        #expect(try await eventually { try await status("PersonCar(31)/Car") == 200 })
        #expect(try await status("Car(30)") == 200)
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test func a_car_whose_ownership_is_refused_is_not_made_and_both_go_once_the_ownership_is_fixed() async throws {
        let app = try await cars(of: "Jones, Bob", on: "Corolla")
        defer { app.close() }
        // When a car is added without the ownership's key: odatapy refuses the ownership, in the changeset that
        // makes the car too (issue 34), so the car is not made either
        try await add(app, car: 32, make: "Wartburg", model: "353", ownership: nil)
        try await app.expect("the refusal") { $0.contains("to resolve") }
        #expect(try await status("Car(32)") == 404)
        // Then the outbox says so, for the ownership
        try app.tmux.sendKeys("o")
        try await app.expect("the outbox") { $0.contains("Changes not yet on the service") && $0.contains("PersonCar") }
        try app.tmux.sendKeys("j", "Enter")
        try await app.expect("why") {
            $0.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: "  ", with: " ")
                .contains("It was sent with the new Car as one change, so none of it was made")
        }
        // When the ownership is given its key there and sent again
        try app.tmux.sendKeys("Escape", "e")
        try await app.expect("the ownership's form") { $0.contains("personCarID") }
        // (the form opens on the first field the service does not key: its key is the one before)
        try app.tmux.sendKeys("BTab")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "33")
        try app.tmux.sendKeys("Enter")
        // Then both are made, the car linked to Bob, and nothing is left to resolve
        try await app.expect("nothing left") { $0.contains("Every change made here is on the service.") }
        #expect(try await eventually { try await status("PersonCar(33)/Car") == 200 })
        #expect(try await status("Car(32)") == 200)
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test func x_in_a_persons_friends_removes_the_friendship_and_both_people_stay() async throws {
        let root = try #require(odatapyRoot)
        let directory = try BuiltProducts.temporaryDirectory("independent-links")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let app = try Launch("browse \(root)Person --profile \(Self.profile(in: directory))", columns: 130, rows: 20)
        defer { app.close() }
        // Given Alice's friends (many to many, no link entity between), reached from her details
        try await app.expect("the people") { $0.contains("Smith, Alice") && $0.contains("● online") }
        try app.tmux.sendKeys("/")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Smith")
        try app.tmux.sendKeys("Enter", "d")
        try await app.expect("her details") { $0.contains("Friends") && $0.contains("›") }
        try await app.select("Friends")
        try app.tmux.sendKeys("Enter")
        try await app.expect("her friends") { $0.contains("White, Carol") && $0.contains("Jones, Bob") }
        try app.tmux.sendKeys("G")
        // When x is pressed on Carol and answered yes
        try app.tmux.sendKeys("x")
        try await app.expect("the question") {
            $0.contains("“Smith, Alice” no longer has “White, Carol” among its Friends: both stay")
        }
        try app.tmux.sendKeys("y")
        try await app.expect("Carol gone from her friends") { !$0.contains("White, Carol") && !$0.contains("pending") }
        // Then on the service the friendship is gone, and Carol is not
        let friends = { () async throws -> String in
            let response = try await HTTPClientTransport(timeout: 10).send(
                TransportRequest(url: root + "Person(1)/Friends"))
            return String(decoding: response.body, as: UTF8.self)
        }
        #expect(try await eventually { try await !friends().contains("Carol") })
        #expect(try await friends().contains("Bob"))
        #expect(try await status("Person(3)") == 200)
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
