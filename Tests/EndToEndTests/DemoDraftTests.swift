import CarDealerTestSupport
import DemoServer
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// Editing through drafts on the built-in service (issue 36), through the built binary in tmux: its v4 root's work
/// orders are kept in drafts as SAP CAP keeps them. A title changed with `e` reaches the active work order (edit,
/// PATCH, prepare, activate) and leaves no draft; a new one whose car does not exist is refused at activation with the
/// service's sentence, edited in the outbox, and then activated, once; ALICE's draft is the service's sentence naming
/// her. Checked over HTTP on the service's side, on a data file of each test's own.
@Suite(
    .tags(.endToEnd), .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct DemoDraftTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// The copies of work order `id` the service at `root` holds, as `(IsActiveEntity, title, carID)` (odatapy's too).
    static func held(_ root: String, _ id: Int) async throws -> [(active: Bool, title: String, car: Int64?)] {
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "WorkOrder?$filter=ID%20eq%20\(id)", dialect: .v4))
        guard
            case .collection(let listed) = try PayloadDecoder(serviceRoot: root, dialect: .v4).decode(response.body)
        else { return [] }
        return listed.entities.compactMap { entity in
            guard case .bool(let active)? = entity["IsActiveEntity"], case .string(let title)? = entity["title"] else {
                return nil
            }
            var car: Int64?
            if case .int(let number)? = entity["carID"] { car = number }
            return (active, title, car)
        }
    }

    /// A service of the test's own and the browser on its work orders.
    func start() async throws -> (server: RunningDemoServer, app: Launch, directory: String) {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-drafts")
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 20, dataPath: directory + "/demo.sqlite"))
        let app = try Launch("browse \(server.version4URL)WorkOrder", columns: 240, rows: 30)
        try await app.expect("the work orders") {
            $0.contains("● online") && $0.contains("Work orders") && $0.contains("Replace the brake pads")
        }
        return (server, app, directory)
    }

    func finish(_ app: Launch) async throws {
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// Closes what ``start()`` opened, however the test ended.
    func close(_ started: (server: RunningDemoServer, app: Launch, directory: String)) {
        started.app.close()
        Task {
            await started.server.stop()
            try? FileManager.default.removeItem(atPath: started.directory)
        }
    }

    @Test func a_title_changed_with_e_is_the_active_work_orders_and_no_draft_is_left() async throws {
        let started = try await start()
        defer { close(started) }
        let (server, app) = (started.server, started.app)
        try await app.select("Rotate the tyres")
        try app.tmux.sendKeys("e")
        try await app.expect("the form") { $0.contains("Change") && $0.contains("(set by the service)") }
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Rotate and balance the tyres")
        try app.tmux.sendKeys("Enter")
        #expect(
            try await eventually {
                let held = try await Self.held(server.version4URL, 2)
                return held.count == 1 && held[0].active && held[0].title == "Rotate and balance the tyres"
            })
        try await app.expect("the list with it, settled") {
            $0.contains("Rotate and balance the tyres") && !$0.contains("to resolve") && !$0.contains("pending")
        }
        try await finish(app)
    }

    @Test func a_new_work_order_refused_at_activation_is_mended_in_the_outbox_and_activated_once() async throws {
        let started = try await start()
        defer { close(started) }
        let (server, app) = (started.server, started.app)
        try app.tmux.sendKeys("a")
        try await app.expect("the new form") { $0.contains("New in Work orders") && $0.contains("Car number") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Fit winter tyres")
        try app.tmux.sendKeys("Tab")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "999999")
        try app.tmux.sendKeys("Enter")
        // Then the activation is refused with the service's sentence, and the draft it made waits on the service
        try await app.expect("the create to resolve") { $0.contains("1 to resolve") }
        try app.tmux.sendKeys("o")
        try await app.expect("the service's sentence") {
            $0.contains("did not activate it") && $0.contains("[NoSuchCar]")
        }
        #expect(try await Self.held(server.version4URL, 5).map(\.active) == [false])
        /// Edits the car of the refused create in the outbox to `car`.
        func mend(from old: String, to car: String) async throws {
            try app.tmux.sendKeys("e")
            try await app.expect("its form") { $0.contains(old) && $0.contains("Enter saves") }
            try app.tmux.sendKeys("Tab")
            try app.tmux.sendKeys("C-u")
            try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", car)
            try app.tmux.sendKeys("Enter")
        }
        // When its car is mended in the outbox, first to another that does not exist: refused again, for that car
        try await mend(from: "999999", to: "888888")
        #expect(
            try await eventually {
                try await Self.held(server.version4URL, 5).first.map { !$0.active && $0.car == 888888 } == true
            })
        try await app.expect("refused again") { $0.contains("[NoSuchCar]") && $0.contains("→ 888888") }
        // Then to one that does (the draft takes the new values: each mending is a request of its own)
        try await mend(from: "888888", to: "2")
        // Then that draft is activated: one active work order 5 with car 2, no draft, nothing made twice
        #expect(
            try await eventually {
                let held = try await Self.held(server.version4URL, 5)
                return held.count == 1 && held[0].active && held[0].car == 2 && held[0].title == "Fit winter tyres"
            })
        // (nothing else made: every work order numbered after the seeded four is this one)
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: server.version4URL + "WorkOrder/$count", dialect: .v4))
        #expect(String(decoding: response.body, as: UTF8.self) == "6", "4 seeded, ALICE's draft, and this one")
        try await app.expect("an empty outbox") { $0.contains("Every change made here is on the service") }
        try app.tmux.sendKeys("Escape")
        try await app.expect("it listed") { $0.contains("Fit winter tyres") && !$0.contains("to resolve") }
        try await finish(app)
    }

    @Test func a_work_order_alice_is_editing_is_the_services_sentence_naming_her() async throws {
        let started = try await start()
        defer { close(started) }
        let (server, app) = (started.server, started.app)
        // The list says whose draft it is, and its screen since when
        try await app.expect("whose draft") { screen in
            screen.split(separator: "\n").contains { $0.contains("Check the lights") && $0.contains("ALICE") }
        }
        try await app.select("Check the lights")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its draft line") { $0.contains("ALICE is editing it, since 2025-11-24 16:01 UTC") }
        try app.tmux.sendKeys("Escape")
        try app.tmux.sendKeys("e")
        try await app.expect("the form") { $0.contains("Change") && $0.contains("(set by the service)") }
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Lights only")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the change to resolve") { $0.contains("1 to resolve") }
        try app.tmux.sendKeys("o")
        try await app.expect("the service's sentence") { $0.contains("423") && $0.contains("ALICE is editing") }
        let held = try await Self.held(server.version4URL, 3)
        #expect(held.map(\.title) == ["Check the lights", "Check the lights and the horn"])
        try await finish(app)
    }

    /// `METHOD v4root + relative` with a JSON body, as a plain client.
    static func send(_ root: String, _ method: RequestMethod, _ relative: String, _ body: String) async throws -> Int {
        var request = TransportRequest(url: root + relative, dialect: .v4)
        request.method = method
        request.body = Array(body.utf8)
        request.headers["Content-Type"] = "application/json"
        return try await HTTPClientTransport(timeout: 10).send(request).status
    }

    @Test func the_form_makes_the_draft_as_it_opens_keeps_a_field_left_and_esc_discards_it() async throws {
        let started = try await start()
        defer { close(started) }
        let (server, app) = (started.server, started.app)
        try await app.select("Rotate the tyres")
        try app.tmux.sendKeys("e")
        // The draft is on the service while the form is open, before anything is saved
        try await app.expect("the form on its draft") {
            $0.contains("Editing a draft on the service") && $0.contains("Esc discards the draft")
        }
        #expect(try await Self.held(server.version4URL, 2).map { "\($0.active)" }.sorted() == ["false", "true"])
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Rotated, not saved")
        try app.tmux.sendKeys("Tab")
        // A field left is kept in the draft; the active work order is as it was
        #expect(
            try await eventually {
                try await Self.held(server.version4URL, 2).map { "\($0.active) \($0.title)" }.sorted()
                    == ["false Rotated, not saved", "true Rotate the tyres"]
            })
        // and the form shows what the service changed with it (the draft's last change, set by the service)
        try await app.expect("the draft's last change") { screen in
            screen.split(separator: "\n").contains { $0.contains("Changed") && !$0.contains("2025-11-24 16:00") }
        }
        try app.tmux.sendKeys("Escape")
        try await app.expect("the question") { $0.contains("Discard what you typed and the draft on the service?") }
        try app.tmux.sendKeys("y")
        try await app.expect("the list again") {
            $0.contains("Rotate the tyres") && !$0.contains("Esc discards the draft")
        }
        #expect(
            try await eventually {
                try await Self.held(server.version4URL, 2).map { "\($0.active) \($0.title)" }
                    == ["true Rotate the tyres"]
            })
        try await finish(app)
    }

    @Test func a_draft_of_your_own_left_on_the_service_is_resumed_in_the_form_and_saved() async throws {
        let started = try await start()
        defer { close(started) }
        let (server, app) = (started.server, started.app)
        let root = server.version4URL
        // Left by an earlier session: made, changed, never activated
        let active = "WorkOrder(ID=2,IsActiveEntity=true)"
        #expect(
            try await Self.send(root, .post, active + "/edmexampleModel.draftEdit", #"{"PreserveChanges":false}"#)
                == 201)
        let draft = "WorkOrder(ID=2,IsActiveEntity=false)"
        #expect((200..<300).contains(try await Self.send(root, .patch, draft, #"{"title":"Left in the draft"}"#)))
        try await app.select("Rotate the tyres")
        try app.tmux.sendKeys("e")
        try await app.expect("the draft resumed") {
            $0.contains("Your draft on the service is resumed: 1 field holds what you left there")
                && $0.contains("Left in the draft")
        }
        try app.tmux.sendKeys("Enter")
        #expect(
            try await eventually {
                try await Self.held(root, 2).map { "\($0.active) \($0.title)" } == ["true Left in the draft"]
            })
        try await app.expect("the list with it, settled") {
            $0.contains("Left in the draft") && !$0.contains("to resolve") && !$0.contains("pending")
        }
        try await finish(app)
    }
}
