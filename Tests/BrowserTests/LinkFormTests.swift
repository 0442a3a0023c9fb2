import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// A car added to a person's cars is made with the link that joins them: the form asks for the link's own fields
/// too (a service may want its key from the client), and a refused create is edited with what was typed (issue 32).
@MainActor
@Suite struct LinkFormTests {
    func frame(_ terminal: HeadlessTerminal) -> String { terminal.lastFrame.joined(separator: "\n") }
    func type(_ text: String) -> [TerminalEvent] { text.map { .key(.char($0)) } }

    @Test func the_add_form_in_a_persons_cars_asks_for_the_links_fields_and_hands_them_on_apart() throws {
        let writes = RecordingWrites()
        let (app, terminal, _) = try ScreenSnapshotTests().seededApp(
            size: TerminalSize(columns: 100, rows: 24), writes: writes)
        // Given Samson, Bob's cars
        _ = app.handle([.key(.char("j")), .key(.char("j")), .key(.enter)])
        // When a is pressed
        _ = app.handle([.key(.char("a"))])
        // Then after the car's fields come the ownership's, under a line naming what it links
        let shown = frame(terminal)
        #expect(shown.contains("The Ownership that links it to Samson, Bob:"), "\(shown)")
        #expect(shown.contains("Ownership number"), "\(shown)")
        // When the car's make, model and year and the ownership's key are typed
        _ = app.handle(
            type("Lada") + [.key(.tab)] + type("Niva") + [.key(.tab)] + type("2001-05-01") + [.key(.tab)] + type("77"))
        _ = app.handle([.key(.enter)])
        // Then the car's values and the link's go apart
        let creation = try #require(writes.created.first, "\(frame(terminal))")
        #expect(creation.properties.contains { $0.name == "make" && $0.value == .string("Lada") })
        #expect(!creation.properties.contains { $0.name == "personCarID" })
        #expect(creation.linkProperties == [ODataProperty(name: "personCarID", value: .int(77))], "\(creation)")
    }

    @Test func e_on_a_refused_create_in_the_outbox_opens_its_form_with_what_was_typed() async throws {
        let writes = RecordingWrites()
        let (app, terminal, cache) = try ScreenSnapshotTests().seededApp(
            size: TerminalSize(columns: 100, rows: 24), writes: writes)
        // Given a new car the service refused
        let now = ScreenSnapshotTests.fixedNow
        let id = try await cache.write { session in
            let id = try session.enqueueCreate(
                EntityKey.temporary(in: "Car"), entitySet: "Car",
                properties: [
                    .init(name: "make", value: .string("Lada")), .init(name: "model", value: .string("Niva")),
                    .init(
                        name: "manufactureDate",
                        value: .dateTime(ODataInstant(millisecondsSince1970: 988_675_200_000))),
                ],
                shownIn: nil, requestID: "r1", at: now)
            try session.failOutbox(id, error: "The service answered HTTP 400: carID is required.")
            return id
        }
        _ = app.handle([.key(.char("o"))])
        // Then only what a refused create can take is offered
        let status = terminal.lastFrame.last ?? ""
        #expect(status.contains("r retry") && status.contains("e edit") && status.contains("x drop"), "\(status)")
        #expect(!status.contains("m mine") && !status.contains("t theirs"), "\(status)")
        // When e is pressed, the form shows what was typed; a key typed into it is sent in its place
        _ = app.handle([.key(.char("e"))])
        #expect(frame(terminal).contains("Lada") && frame(terminal).contains("Niva"), "\(frame(terminal))")
        _ = app.handle([.key(.backTab)] + type("9") + [.key(.enter)])
        let (resolved, resolution) = try #require(writes.resolved.first, "\(frame(terminal))")
        #expect(resolved == id)
        guard case .resend(let properties) = resolution else {
            Issue.record("expected the edited create to be sent again, got \(resolution)")
            return
        }
        #expect(properties.contains { $0.name == "carID" && $0.value == .int(9) }, "\(properties)")
        #expect(properties.contains { $0.name == "model" && $0.value == .string("Niva") }, "\(properties)")
    }
}
