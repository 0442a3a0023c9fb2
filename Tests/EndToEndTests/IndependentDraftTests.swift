import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// Editing through drafts on a server we did not write (issue 36), through the built binary in tmux: odatapy's work
/// orders (`.ci/independent/ownership_service.py`) are a set whose `Common.DraftRoot` names CAP's draft actions. A
/// title changed with `e` reaches the active work order through its draft (edit, PATCH, prepare, activate), and no
/// draft is left behind; one added with `a` is made a draft by the set's `NewAction` (`WorkOrderNew`, as SAP RAP
/// names one) and activated; a
/// work order whose draft another user holds is the service's sentence in the outbox, and
/// nothing changes on the service. A form keeps each field in the draft it opened, and shows what the service's side
/// effects changed there. Checked over HTTP on the service's side.
@Suite(
    .tags(.endToEnd),
    .serialized, .enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)"),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed")
)
struct IndependentDraftTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// The work orders with `id` the service holds (active and draft), as `(IsActiveEntity, title)`.
    func workOrders(_ root: String, id: Int) async throws -> [(active: Bool, title: String)] {
        try await DemoDraftTests.held(root, id).map { ($0.active, $0.title) }
    }

    /// Opens the work orders, the one titled `title` in its form, and saves it with `newTitle`.
    func change(_ app: Launch, _ title: String, to newTitle: String) async throws {
        try await app.expect("the work orders") { $0.contains("● online") && $0.contains(title) }
        try await app.select(title)
        try app.tmux.sendKeys("e")
        try await app.expect("the form") { $0.contains("Change") && $0.contains("(set by the service)") }
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", newTitle)
        try app.tmux.sendKeys("Enter")
    }

    @Test func a_title_changed_through_its_draft_is_the_active_work_orders_and_no_draft_is_left() async throws {
        let root = try #require(odatapyRoot)
        let current = try await workOrders(root, id: 1).first { $0.active }?.title ?? "Replace the brake pads"
        let newTitle = "Brake pads \(Int.random(in: 10_000...99_999))"
        let app = try Launch("browse \(root)WorkOrder", columns: 120, rows: 30)
        defer { app.close() }
        try await change(app, current, to: newTitle)
        // Then the service holds the new title on the active work order, and no draft of it
        #expect(
            try await eventually {
                let held = try await workOrders(root, id: 1)
                return held.count == 1 && held[0].active && held[0].title == newTitle
            })
        try await app.expect("the list with it") { $0.contains(newTitle) && !$0.contains("to resolve") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test func a_new_work_order_is_made_a_draft_by_the_new_action_and_activated() async throws {
        let root = try #require(odatapyRoot)
        let id = Int.random(in: 1_000...999_999)
        let app = try Launch("browse \(root)WorkOrder", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the work orders") { $0.contains("● online") && $0.contains("Rotate the tyres") }
        // When one is added with `a`: its title, then its key
        try app.tmux.sendKeys("a")
        try await app.expect("the new form") { $0.contains("New in WorkOrder") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Oil change \(id)")
        try app.tmux.sendKeys("BTab")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", String(id))
        try app.tmux.sendKeys("Enter")
        // Then the service holds it active, with no draft of it left
        #expect(
            try await eventually {
                let held = try await workOrders(root, id: id)
                return held.count == 1 && held[0].active && held[0].title == "Oil change \(id)"
            })
        // and its draft was made by the set's NewAction (WorkOrderNew), as the service says
        let origin = root.replacingOccurrences(of: "/odata/", with: "")
        let made = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: origin + "/_test/made-by-new-action"))
        #expect(
            (try JSONSerialization.jsonObject(with: Data(made.body)) as? [Int])?.contains(id) == true,
            "\(String(decoding: made.body, as: UTF8.self))")
        try await app.expect("it listed, settled") { $0.contains("Oil change \(id)") && !$0.contains("to resolve") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test func a_work_order_whose_draft_another_user_holds_is_the_services_sentence() async throws {
        let root = try #require(odatapyRoot)
        let before = try await workOrders(root, id: 2)
        let app = try Launch("browse \(root)WorkOrder", columns: 120, rows: 30)
        defer { app.close() }
        try await change(app, "Check the lights", to: "Lights only")
        // Then the change waits in the outbox with the service's reason
        try await app.expect("the change to resolve") { $0.contains("1 to resolve") }
        try app.tmux.sendKeys("o")
        try await app.expect("the service's sentence") { $0.contains("failed") && $0.contains("423") }
        // And nothing changed on the service: ALICE's draft and the active work order are as they were
        let after = try await workOrders(root, id: 2)
        #expect(after.map(\.title) == before.map(\.title) && after.map(\.active) == before.map(\.active))
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test func the_forms_draft_is_on_the_service_while_it_is_open_keeps_a_field_and_esc_discards_it() async throws {
        let root = try #require(odatapyRoot)
        let title = try await workOrders(root, id: 3).first { $0.active }?.title ?? "Rotate the tyres"
        let app = try Launch("browse \(root)WorkOrder", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the work orders") { $0.contains("● online") && $0.contains(title) }
        try await app.select(title)
        try app.tmux.sendKeys("e")
        // The draft is made on the service as the form opens
        try await app.expect("the form on its draft") { $0.contains("Editing a draft on the service") }
        #expect(try await workOrders(root, id: 3).map { "\($0.active)" }.sorted() == ["false", "true"])
        try app.tmux.sendKeys("C-u")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Kept in the draft")
        try app.tmux.sendKeys("Tab")
        // A field left is kept in it, by odatapy's own PATCH; the active one is as it was
        #expect(
            try await eventually {
                try await workOrders(root, id: 3).map { "\($0.active) \($0.title)" }.sorted()
                    == ["false Kept in the draft", "true \(title)"]
            })
        // and the words the service works out from it (its side effect, read again: odatapy answers the PATCH with
        // no entity) show in the form
        try await app.expect("the draft's words") { $0.contains("words  4  (set by the service)") }
        try app.tmux.sendKeys("Escape")
        try await app.expect("the question") { $0.contains("and the draft on the service?") }
        try app.tmux.sendKeys("y")
        // Esc discards it: only the active one is left
        #expect(
            try await eventually {
                try await workOrders(root, id: 3).map { "\($0.active) \($0.title)" } == ["true \(title)"]
            })
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
