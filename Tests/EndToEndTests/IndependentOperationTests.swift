import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// Operations of a service we did not write (issue 36): odatapy's v4 service (`.ci/independent/ownership_service.py`)
/// declares the unbound function `CarsByMake` and the action `Repaint` bound to a car; the model reads them from its
/// `$metadata`, and the requests built for them are what odatapy's router takes, checked by their outcome on the
/// service. The car is one of the test's own (no other test touches it): the service runs once for the whole check.
@Suite(
    .tags(.endToEnd),
    .serialized, .enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)"),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed")
)
struct IndependentOperationTests {
    typealias Launch = BrowserInTmuxTests.Launch

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await HTTPClientTransport(timeout: 10).send(request)
    }

    func entities(_ response: TransportResponse, root: String) throws -> [ODataEntity] {
        switch try PayloadDecoder(serviceRoot: root, dialect: .v4).decode(response.body) {
        case .collection(let collection): collection.entities
        case .entity(let entity): [entity]
        default: []
        }
    }

    @Test func a_function_and_an_action_bound_to_a_car_are_invoked_as_the_metadata_declares_them() async throws {
        let root = try #require(odatapyRoot)
        let metadata = try await send(TransportRequest(url: root + "$metadata", acceptsXML: true, dialect: .v4))
        let model = try EDMXParser.parse(metadata.body)
        let byMake = try #require(model.unboundOperations.first { $0.name == "CarsByMake" })
        #expect(byMake.kind == .function && byMake.entitySet == "Car")
        #expect(byMake.returnType == .collection(.named("Ownership.Car")))
        let repaint = try #require(model.operations(boundTo: "Ownership.Car").first { $0.name == "Ownership.Repaint" })
        #expect(repaint.name == "Ownership.Repaint" && repaint.kind == .action)
        #expect(repaint.parameters.map(\.name) == ["make"])
        // Given a car of the test's own (a new one each run: the service may outlive a run)
        let number = Int.random(in: 10_000...99_999)
        var create = TransportRequest(method: .post, url: root + "Car", dialect: .v4)
        create.headers["Content-Type"] = "application/json"
        create.body = Array(#"{"carID":\#(number),"make":"Trabant \#(number)","model":"601"}"#.utf8)
        #expect(try await send(create).status == 201)
        let car = EntityKey(entitySet: "Car", value: .int(Int64(number)))
        let builder = OperationRequestBuilder(urls: ODataURLBuilder(serviceRoot: root, model: model))
        // When the function is invoked with its make
        let found = try await send(
            try builder.request(byMake, arguments: [.init(name: "make", value: .string("Trabant \(number)"))]))
        // Then the service answers with that car alone
        #expect(found.status == 200)
        #expect(try entities(found, root: root).map { $0["carID"] } == [.int(Int64(number))])
        // When the action repaints it, against the ETag it has
        func read() async throws -> ODataEntity {
            let response = try await send(TransportRequest(url: root + car.canonical, dialect: .v4))
            return try #require(try entities(response, root: root).first)
        }
        let before = try await read()
        func invokeRepaint(_ make: String, etag: String?) async throws -> TransportResponse {
            let attempt = WriteRequestBuilder.Attempt(
                requestID: UUID().uuidString.lowercased(), firstSent: Date(), etag: etag)
            return try await send(
                try builder.request(
                    repaint, arguments: [.init(name: "make", value: .string(make))], on: car, attempt: attempt))
        }
        // Then the service holds the new make, under a new ETag
        #expect(try await invokeRepaint("Škoda \(number)", etag: before.metadata.etag).status == 204)
        let after = try await read()
        #expect(after["make"] == .string("Škoda \(number)"))
        #expect(after.metadata.etag != before.metadata.etag)
        // And against the ETag it had before, the service refuses it, and the make stays
        #expect(try await invokeRepaint("Wartburg \(number)", etag: before.metadata.etag).status == 412)
        #expect(try await read()["make"] == .string("Škoda \(number)"))
        // And a required parameter left out is a sentence before any request
        #expect(throws: OperationCallError(description: "Repaint needs a value for make.")) {
            try builder.request(repaint, arguments: [], on: car)
        }
    }

    /// In the built binary: `!` on the cars lists the function, Enter asks for its make, and the answer opens as a
    /// list of the cars the service itself answers for that make.
    @Test func bang_then_the_function_with_its_make_lists_the_cars_the_service_answers() async throws {
        let root = try #require(odatapyRoot)
        // Given a car of the test's own, of a make no other car has
        let number = Int.random(in: 10_000...99_999)
        var create = TransportRequest(method: .post, url: root + "Car", dialect: .v4)
        create.headers["Content-Type"] = "application/json"
        create.body = Array(#"{"carID":\#(number),"make":"Zaporozhets \#(number)","model":"968M"}"#.utf8)
        #expect(try await send(create).status == 201)
        let app = try Launch("browse \(root)Car", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the cars") { $0.contains("● online") && !$0.contains("loading…") }
        // When ! is pressed and the function chosen
        try app.tmux.sendKeys("!")
        try await app.expect("the operations") { $0.contains("Of the service") && $0.contains("CarsByMake") }
        try await app.select("CarsByMake")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its parameter") { $0.contains("make") && $0.contains("Enter saves") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Zaporozhets \(number)")
        try app.tmux.sendKeys("Enter")
        // Then its answer is a list of that car alone
        let screen = try await app.expect("the function's answer") {
            $0.contains("CarsByMake Zaporozhets \(number)") && $0.contains("968M") && !$0.contains("loading…")
        }
        let rows = screen.split(separator: "\n").filter { $0.contains("Zaporozhets") || $0.contains("Trabant") }
        #expect(rows.count == 2, "\(screen)")  // the breadcrumb and the one row
        // And the service was asked by the call itself
        try app.tmux.sendKeys("i")
        // (listed among the requests: the newest line need not be the call's, a list's read may be logged after it)
        try await app.expect("the call in the request log") {
            $0.contains("Request log") && $0.contains("CarsByMake(make=")
        }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// In the built binary: `!` on a car, Repaint with a make, `y`: the action goes through the outbox, and the
    /// service holds the new make (read back over HTTP), which the row shows once the car is read again. The make's
    /// field starts at the parameter's default (`Core.OptionalParameter`) and F4 lists the makes its
    /// `Common.ValueList` names; a make typed past them is taken too (they are not fixed).
    @Test func bang_on_a_car_then_repaint_with_a_make_repaints_it_on_the_service() async throws {
        let root = try #require(odatapyRoot)
        let number = Int.random(in: 10_000...99_999)
        var create = TransportRequest(method: .post, url: root + "Car", dialect: .v4)
        create.headers["Content-Type"] = "application/json"
        create.body = Array(#"{"carID":\#(number),"make":"Lada \#(number)","model":"Niva"}"#.utf8)
        #expect(try await send(create).status == 201)
        let app = try Launch("browse \(root)Car", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the cars") { $0.contains("● online") && !$0.contains("loading…") }
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "filter carID = \(number)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the test's car") { $0.contains("Lada \(number)") && !$0.contains("asking the service") }
        // When Repaint is chosen on it, with a make, and confirmed
        try app.tmux.sendKeys("!")
        try await app.expect("its operations") { $0.contains("On ") && $0.contains("Repaint") && $0.contains("action") }
        try await app.select("Repaint")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its parameter, at its default, with value help") {
            $0.contains("make") && $0.contains("Skoda") && $0.contains("F4 lists values")
        }
        // (the value help lists the service's makes and writes the chosen one in; one typed over it goes instead)
        try app.tmux.sendKeys("F4")
        try await app.expect("the makes") { $0.contains("Czechia") && $0.contains("Enter takes it for make") }
        try await app.select("Tesla")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the make taken") { $0.contains("Taken from the value help") && $0.contains("Tesla") }
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Volga \(number)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the question") { $0.contains("y sends it") && $0.contains("Volga \(number)") }
        try app.tmux.sendKeys("y")
        // Then the service holds the new make
        var make: ODataValue?
        for _ in 0..<100 {
            let response = try await send(TransportRequest(url: root + "Car(\(number))", dialect: .v4))
            make = try entities(response, root: root).first?["make"]
            if make == .string("Volga \(number)") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(make == .string("Volga \(number)"))
        // And the row shows it, read again from the service, with nothing left in the outbox
        try await app.expect("the new make on the row") {
            $0.contains("Volga \(number)") && !$0.contains("pending")
        }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// In the built binary: functions that answer a value, not a list: `Describe` on a car (bound, no parameters) and
    /// `CountOfMake` on the service (a parameter), each shown as the service answers it (asked over HTTP too).
    @Test func functions_answering_a_value_show_the_services_answer() async throws {
        let root = try #require(odatapyRoot)
        let number = Int.random(in: 10_000...99_999)
        var create = TransportRequest(method: .post, url: root + "Car", dialect: .v4)
        create.headers["Content-Type"] = "application/json"
        create.body = Array(#"{"carID":\#(number),"make":"Moskvitch \#(number)","model":"412"}"#.utf8)
        #expect(try await send(create).status == 201)
        // What the service answers, asked by hand
        let described = try await send(
            TransportRequest(url: root + "Car(\(number))/Ownership.Describe()", dialect: .v4))
        let text = try #require(
            (try JSONSerialization.jsonObject(with: Data(described.body)) as? [String: Any])?["value"] as? String)
        #expect(text == "Moskvitch \(number) 412")
        let app = try Launch("browse \(root)Car", columns: 120, rows: 24)
        defer { app.close() }
        try await app.expect("the cars") { $0.contains("● online") && !$0.contains("loading…") }
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "filter carID = \(number)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the test's car") { $0.contains("Moskvitch \(number)") && !$0.contains("asking") }
        // The bound function: no parameters, its answer at once
        try app.tmux.sendKeys("!")
        try await app.expect("its operations") { $0.contains("Describe") && $0.contains("CountOfMake") }
        try await app.select("Describe")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its answer") {
            $0.contains("Describe") && $0.contains(text) && $0.contains("r asks again")
        }
        // The service's function: its parameter, then the count
        try app.tmux.sendKeys("Escape")
        try await app.expect("the operations again") { $0.contains("CountOfMake") }
        try await app.select("CountOfMake")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its parameter") { $0.contains("make") && $0.contains("Enter saves") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Moskvitch \(number)")
        try app.tmux.sendKeys("Enter")
        let counted = try await app.expect("the count") { screen in
            screen.contains("CountOfMake Moskvitch \(number)")
                && screen.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == "1" }
        }
        #expect(!counted.contains("loading…"), "\(counted)")
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
