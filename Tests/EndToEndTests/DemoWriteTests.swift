import CarDealerTestSupport
import DemoServer
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// The built binary in tmux changes and deletes data of the built-in service (on a data file of its own).
@Suite(
    .tags(.endToEnd), .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct DemoWriteTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// The service's own copy of a car's make (what the list without a profile shows), read past the browser.
    func make(of car: Int, at root: String) async throws -> (status: Int, make: String?) {
        let response = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: root + "Car(\(car))"))
        guard response.status == 200,
            case .entity(let entity) = try PayloadDecoder(serviceRoot: root).decode(response.body)
        else { return (response.status, nil) }
        if case .string(let make)? = entity["make"] { return (200, make) }
        return (200, nil)
    }

    @Test func a_car_changed_then_deleted_in_the_browser_is_changed_then_gone_on_the_service() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-writes")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let app = try Launch("browse \(server.baseURL)Car", columns: 100, rows: 30)
        defer { app.close() }
        // Given the first car on the list, its count on the status line: in the order the service's
        // UI.PresentationVariant gives (make, model, key), the car the service lists first in that order
        try await app.expect("the cars") {
            $0.contains("● online") && !$0.contains("loading…") && $0.contains("1 of ")
        }
        let firstCar = try await entities("Car?$orderby=make,model,carID&$top=1", at: server.baseURL).first
        guard case .int(let number)? = firstCar?["carID"] else {
            Issue.record("the service listed no car")
            return
        }
        let car = Int(number)
        let before = try await make(of: car, at: server.baseURL)
        #expect(before.status == 200)
        // When its make is changed in the form
        try app.tmux.sendKeys("g", "e")
        try await app.expect("the form") { $0.contains("Change ") && $0.contains("(key)") }
        try app.tmux.sendKeys("C-u")  // the make, the first field that can change, which the list shows
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Typed in tmux")
        try app.tmux.sendKeys("Enter")
        // Then the list shows it, settled, and the service holds it
        try await app.expect("the change settled") {
            $0.contains("Typed in tmux") && !$0.contains("(key)") && !$0.contains("pending")
        }
        // (the status line's "pending" comes from an observation of its own, so the service is asked until it has it)
        #expect(try await eventually { try await make(of: car, at: server.baseURL).make == "Typed in tmux" })
        // When it is deleted, after the question naming it
        try app.tmux.sendKeys("x")
        try await app.expect("the question") { $0.contains("Delete “") && $0.contains("y deletes it") }
        try app.tmux.sendKeys("y")
        // Then it leaves the list, and the service no longer has it
        try await app.expect("the row gone") { !$0.contains("Typed in tmux") && !$0.contains("pending") }
        #expect(try await eventually { try await make(of: car, at: server.baseURL).status == 404 })
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
        app.close()
        await server.stop()
    }
}

extension DemoWriteTests {
    /// The service's entities at `path` (past the browser), decoded.
    func entities(_ path: String, at root: String) async throws -> [ODataEntity] {
        let response = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: root + path))
        switch try PayloadDecoder(serviceRoot: root).decode(response.body) {
        case .collection(let collection): return collection.entities
        case .entity(let entity): return [entity]
        default: return []
        }
    }

    func type(_ app: Launch, _ text: String) throws {
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", text)
    }

    /// `a`, then the form's editable fields in order (Tab between them), then Enter.
    func add(_ app: Launch, _ values: [String], title: String) async throws {
        try app.tmux.sendKeys("a")
        try await app.expect("the new \(title) form") { $0.contains("New in \(title)") }
        for (index, value) in values.enumerated() {
            if index > 0 { try app.tmux.sendKeys("Tab") }
            try type(app, value)
        }
        try app.tmux.sendKeys("Enter")
        // (what follows waits for the list: the form itself shows what was typed)
        try await app.expect("the new \(title) form closed") { !$0.contains("New in \(title)") }
    }

    /// `/` filter for `text`, kept with Enter: the cursor is on the first match.
    func find(_ app: Launch, _ text: String) async throws {
        try app.tmux.sendKeys("/")
        try app.tmux.sendKeys("C-u")  // what the last filter left
        try type(app, text)
        try app.tmux.sendKeys("Enter")
        try await app.expect("the filter") { $0.contains("filter “\(text)”") && $0.contains("1 of 1") }
    }

    func changeFirstField(_ app: Launch, to text: String) async throws {
        try app.tmux.sendKeys("e")
        try await app.expect("the change form") { $0.contains("Change ") }
        try app.tmux.sendKeys("C-u")
        try type(app, text)
        try app.tmux.sendKeys("Enter")
        try await app.expect("the change form closed") { !$0.contains("Change ") }
    }

    func deleteSelected(_ app: Launch) async throws {
        try app.tmux.sendKeys("x")
        try await app.expect("the question") { $0.contains("Delete “") && $0.contains("y deletes it") }
        try app.tmux.sendKeys("y")
    }

    /// `:delete-entity` on the selected row, answered yes.
    func deleteEntity(_ app: Launch) async throws {
        try app.tmux.sendKeys(":")
        try type(app, "delete-entity")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the question") { $0.contains("Delete “") && $0.contains("y deletes it") }
        try app.tmux.sendKeys("y")
    }

    /// `x` on a row reached through a link entity: the question says the link goes and the entity stays.
    func unlinkSelected(_ app: Launch) async throws {
        try app.tmux.sendKeys("x")
        try await app.expect("the question") { $0.contains("no longer has “") && $0.contains("y removes the link") }
        try app.tmux.sendKeys("y")
    }

    /// The browser works at the v2 root or the v4 one; the service's side is read at the v2 root (the same data).
    @Test(arguments: ODataDialect.allCases)
    func add_change_and_delete_on_each_of_the_three_levels(dialect: ODataDialect) async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-levels")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite", latencyMilliseconds: 50))
        let profile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Browser/Profile/cardealer.profile.json").path
        let root = server.baseURL
        let browsed = dialect == .v4 ? server.version4URL : root
        let app = try Launch("browse \(browsed)Person --profile \(profile)", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the people") { $0.contains("Customer since") && $0.contains("● online") }

        // People: a person added shows at once, then is on the service; changed; deleted
        try await add(app, ["Zed", "Quorra", "123456789"], title: "People")
        try await app.expect("the new person, settled") {
            $0.contains("Quorra, Zed") && !$0.contains("pending") && !$0.contains("New in")
        }
        #expect(try await eventually { try await entities("Person?$filter=lastName eq 'Quorra'", at: root).count == 1 })
        try await find(app, "Quorra")
        try await changeFirstField(app, to: "Yara")
        try await app.expect("the change, settled") { $0.contains("Quorra, Yara") && !$0.contains("pending") }
        #expect(
            try await eventually {
                try await entities("Person?$filter=lastName eq 'Quorra'", at: root).first?["firstName"]
                    == .string("Yara")
            })
        try await deleteSelected(app)
        try await app.expect("the person gone") { $0.contains("nothing matches “Quorra”") }
        #expect(try await eventually { try await entities("Person?$filter=lastName eq 'Quorra'", at: root).isEmpty })
        try app.tmux.sendKeys("Escape")  // the filter

        // Cars of a person: a car added is linked to them through a new ownership
        try await find(app, "Garcia")
        let person = try #require(try await entities("Person?$filter=lastName eq 'Garcia'", at: root).first?.key)
        try app.tmux.sendKeys("Enter")
        try await app.expect("their cars") { $0.contains("Make") && $0.contains("Cars") }
        try await add(app, ["Wartburg", "353", "1985-06-01"], title: "Cars")
        try await app.expect("the new car, settled") { $0.contains("Wartburg") && !$0.contains("pending") }
        let owned = { () async throws -> [ODataEntity] in
            try await self.entities("\(person.canonical)/PersonCar?$expand=Car", at: root).compactMap { link in
                if case .entity(let car)? = link.navigation("Car"), car["make"] == .string("Wartburg") { return car }
                return nil
            }
        }
        #expect(try await eventually { try await owned().count == 1 })
        try await find(app, "Wartburg")
        try await changeFirstField(app, to: "Wartburg-Werk")
        try await app.expect("the car changed") { $0.contains("Wartburg-Werk") && !$0.contains("pending") }
        #expect(try await eventually { try await owned().isEmpty })  // its make is no longer "Wartburg"

        // Maintenance of that car: a record added under the ownership
        try app.tmux.sendKeys("Enter")
        try await app.expect("its maintenance") { $0.contains("Mileage") && $0.contains("Maintenance") }
        try await add(app, ["Timing belt", "2026-11-20", "123456", "480.25"], title: "Maintenance")
        try await app.expect("the new record, settled") {
            $0.contains("Timing belt") && $0.contains("123,456") && !$0.contains("pending")
        }
        let records = { () async throws -> [ODataEntity] in
            try await self.entities("Maintenance?$filter=mileage eq 123456", at: root)
        }
        #expect(try await eventually { try await records().count == 1 })
        try await find(app, "Timing")
        try await changeFirstField(app, to: "Timing belt and water pump")
        try await app.expect("the record changed") { $0.contains("water pump") && !$0.contains("pending") }
        #expect(
            try await eventually {
                try await records().first?["description"] == .string("Timing belt and water pump")
            })
        // (reached through the ownership's service records, x would take it off this ownership: the record itself
        // goes with :delete-entity)
        try await deleteEntity(app)
        try await app.expect("the record gone") { !$0.contains("water pump") }
        #expect(try await eventually { try await records().isEmpty })

        // x on the car in its owner's cars ends the ownership: the car itself stays on the service
        try app.tmux.sendKeys("Escape", "Escape")
        try await app.expect("the cars again") { $0.contains("Wartburg-Werk") }
        try await find(app, "Wartburg-Werk")
        try await unlinkSelected(app)
        try await app.expect("the car gone from the list") { $0.contains("nothing matches “Wartburg-Werk”") }
        let ownedNow = { () async throws -> Int in
            try await self.entities("\(person.canonical)/PersonCar?$expand=Car", at: root).filter { link in
                if case .entity(let car)? = link.navigation("Car") { return car["make"] == .string("Wartburg-Werk") }
                return false
            }.count
        }
        #expect(try await eventually { try await ownedNow() == 0 })
        #expect(try await entities("Car?$filter=make eq 'Wartburg-Werk'", at: root).count == 1)
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
        await server.stop()
    }
}

extension DemoWriteTests {
    /// Changes `lastName`'s first name on the service itself (past the browser), moving its ETag on.
    func changeOnTheService(_ lastName: String, firstName: String, at root: String) async throws {
        let key = try #require(try await entities("Person?$filter=lastName eq '\(lastName)'", at: root).first?.key)
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(
                method: .merge, url: root + key.canonical,
                headers: ["Content-Type": "application/json", "If-Match": "*"],
                body: RequestBodyEncoder.object([.init(name: "firstName", value: .string(firstName))])))
        #expect(response.status == 204)
    }

    func firstName(_ lastName: String, at root: String) async throws -> ODataValue? {
        try await entities("Person?$filter=lastName eq '\(lastName)'", at: root).first?["firstName"]
    }

    /// The browser works at the v2 root or the v4 one; the service's side is read at the v2 root (the same data).
    @Test(arguments: ODataDialect.allCases)
    func a_conflict_is_resolved_each_of_the_three_ways(dialect: ODataDialect) async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-conflicts")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let root = server.baseURL
        let profile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Browser/Profile/cardealer.profile.json").path
        let browsed = dialect == .v4 ? server.version4URL : root
        let app = try Launch("browse \(browsed)Person --profile \(profile)", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the people") { $0.contains("1 of 30") && $0.contains("● online") }

        for (lastName, key) in [("Allen", "m"), ("Flores", "t"), ("Hill", "e")] {
            // Given a person changed on the service while the browser's form is open on them
            try await find(app, lastName)
            try app.tmux.sendKeys("e")
            try await app.expect("the change form") { $0.contains("Change \(lastName)") }
            try await changeOnTheService(lastName, firstName: "Theirs", at: root)
            // When mine is saved against the version the browser read
            try app.tmux.sendKeys("C-u")
            try type(app, "Mine")
            try app.tmux.sendKeys("Enter")
            // Then it is a conflict that needs the user, shown in the outbox with theirs beside mine
            try await app.expect("the conflict") { $0.contains("1 to resolve (o)") }
            try app.tmux.sendKeys("o")
            try await app.expect("the outbox") { $0.contains("conflict") && $0.contains("1 need you") }
            try app.tmux.sendKeys(key)
            switch key {
            case "m":
                // Keep mine: sent again against their version
                #expect(try await eventually { try await firstName(lastName, at: root) == .string("Mine") })
            case "t":
                // Take theirs: nothing is sent, and the browser shows theirs
                try app.tmux.sendKeys("Escape")
                try await app.expect("theirs on the list") { $0.contains("\(lastName), Theirs") }
                #expect(try await firstName(lastName, at: root) == .string("Theirs"))
            default:
                // Edit: a form on their version with mine filled in; what is saved replaces mine
                try await app.expect("the form with mine") { $0.contains("Mine") && $0.contains("Change ") }
                try app.tmux.sendKeys("C-u")
                try type(app, "Edited")
                try app.tmux.sendKeys("Enter")
                #expect(try await eventually { try await firstName(lastName, at: root) == .string("Edited") })
            }
            try await app.expect("nothing left to resolve") { !$0.contains("to resolve") && !$0.contains("need you") }
            if key != "t" { try app.tmux.sendKeys("Escape") }  // the outbox
            try await app.expect("the list") { $0.contains("filter “\(lastName)”") }
            try app.tmux.sendKeys("Escape")  // the filter
        }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
        await server.stop()
    }
}

extension DemoWriteTests {
    @Test func a_change_the_service_refuses_is_rolled_back_and_its_words_shown() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-refused")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite", readOnly: true))
        let app = try Launch("browse \(server.baseURL)Car", columns: 100, rows: 30)
        defer { app.close() }
        let list = try await app.expect("the cars") { $0.contains("● online") && !$0.contains("loading…") }
        let before = try #require(try await make(of: 1, at: server.baseURL).make)
        #expect(list.contains(before))
        // When the first car's make is changed, and the service refuses it
        try app.tmux.sendKeys("g", "e")
        try await app.expect("the form") { $0.contains("Change ") && $0.contains("(key)") }
        try app.tmux.sendKeys("C-u")
        try type(app, "Refused make")
        try app.tmux.sendKeys("Enter")
        // Then the row goes back to the service's make, and the refusal waits in the outbox in its words
        try await app.expect("the change rolled back") {
            !$0.contains("Refused make") && $0.contains(before) && $0.contains("1 to resolve (o)")
        }
        try app.tmux.sendKeys("o")
        try await app.expect("the outbox") { $0.contains("failed") && $0.contains("1 need you") }
        try app.tmux.sendKeys("Enter")
        try await app.expect("the service's words") { $0.contains("read-only") }
        #expect(try await make(of: 1, at: server.baseURL).make == before)
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
        await server.stop()
    }
}

extension DemoWriteTests {
    /// Issue 32: after `r` brought a row that sorts above the cursor, `e` changed the record that took the cursor's
    /// old place. The cursor stays on its person.
    @Test func after_a_refresh_brings_a_row_above_the_cursor_e_edits_the_person_the_cursor_was_on() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-cursor")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let profile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Browser/Profile/cardealer.profile.json").path
        let app = try Launch("browse \(server.baseURL)Person --profile \(profile)", columns: 100, rows: 20)
        defer { app.close() }
        // Given the cursor on the third person
        try await app.expect("the people") { $0.contains("1 of 30") && $0.contains("● online") }
        try app.tmux.sendKeys("j", "j")
        let screen = try await app.expect("the third row") { $0.contains("3 of 30") }
        let selected = try #require(screen.split(separator: "\n").first { $0.hasPrefix("▌") })
        let name = String(selected.dropFirst().prefix(30)).trimmingCharacters(in: .whitespaces)
        // When someone else adds a person who sorts first, and the list is refreshed
        let body = #"{"firstName":"Ada","lastName":"Aaberg","ssn":"1","createDate":"\/Date(0)\/"}"#
        var post = TransportRequest(method: .post, url: server.baseURL + "Person", body: Array(body.utf8))
        post.headers["Content-Type"] = "application/json"
        #expect(try await HTTPClientTransport(timeout: 10).send(post).status == 201)
        try app.tmux.sendKeys("r")
        // Then the cursor is still on that person, now the fourth of 31
        let after = try await app.expect("the cursor on the same person") { $0.contains("4 of 31") }
        #expect(after.split(separator: "\n").first { $0.hasPrefix("▌") }?.contains(name) == true, "\(after)")
        // And e changes that person
        try app.tmux.sendKeys("e")
        try await app.expect("their form") { $0.contains("Change ") && $0.contains(name.split(separator: ",")[0]) }
        try app.tmux.sendKeys("Escape", "q")
        await server.stop()
    }
}
