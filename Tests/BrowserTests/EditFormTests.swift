import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// The form built from `$metadata`: typed input, refusals next to the field, only changes handed on.
@MainActor
@Suite struct EditFormTests {
    /// The people list over a seeded cache, with a session that writes.
    func app(
        size: TerminalSize = TerminalSize(columns: 72, rows: 16)
    ) throws
        -> (BrowserApp, HeadlessTerminal, CacheDatabase, RecordingWrites)
    {
        let writes = RecordingWrites()
        let (app, terminal, cache) = try ScreenSnapshotTests().seededApp(size: size, writes: writes)
        return (app, terminal, cache, writes)
    }

    func type(_ text: String) -> [TerminalEvent] { text.map { .key(.char($0)) } }
    func frame(_ terminal: HeadlessTerminal) -> String { terminal.lastFrame.joined(separator: "\n") }

    @Test func the_form_has_a_field_per_property_with_keys_and_server_fields_read_only() throws {
        let (app, terminal, _, _) = try app()
        // When e is pressed on the first person (Ærøskøbing-Łódź, Zoë)
        _ = app.handle([.key(.char("e"))])
        let shown = frame(terminal)
        // Then every property has a line, labelled as the profile or $metadata says
        for label in ["Person number", "First name", "Last name", "Social security number", "Customer since"] {
            #expect(shown.contains(label), "\(label)\n\(shown)")
        }
        #expect(shown.contains("(key)") && shown.contains("(set by the service)"))
        #expect(shown.contains("Zoë") && shown.contains("Ærøskøbing-Łódź"))
    }

    @Test func invalid_input_is_refused_next_to_its_field_and_nothing_is_queued() throws {
        let (app, terminal, _, writes) = try app()
        // When ssn (MaxLength 9) gets ten characters and Enter is pressed
        _ = app.handle([.key(.char("e")), .key(.tab), .key(.tab)] + type("0123456789") + [.key(.enter)])
        // Then the form stays, says why next to the field, and hands nothing on
        let shown = frame(terminal)
        // (named by the service's label)
        #expect(shown.contains("Social security number takes at most 9"), "\(shown)")
        #expect(shown.contains("Nothing was saved"))
        #expect(writes.saved.isEmpty)
        // When it is cleared and typed again
        _ = app.handle([.key(.ctrl("u"))] + type("123-45") + [.key(.enter)])
        // Then only the changed field is handed on, and the form closes
        #expect(
            writes.saved == [EntityChange(key: "Person(2)", changes: [.init(name: "ssn", value: .string("123-45"))])])
        #expect(app.stack.top is EntityListController)
    }

    @Test func typed_values_become_edm_values_and_hostile_text_stays_inert() throws {
        let (app, terminal, _, writes) = try app()
        // When the first name gets an escape sequence and a right-to-left override typed into it
        _ = app.handle([.key(.char("e"))] + [.key(.ctrl("u"))] + type("\u{1B}[2J\u{202E}Eve") + [.key(.enter)])
        // Then the value is handed on as typed, and the frame showed it without its control characters
        #expect(writes.saved.first?.changes == [.init(name: "firstName", value: .string("\u{1B}[2J\u{202E}Eve"))])
        #expect(!frame(terminal).contains("\u{1B}") && !frame(terminal).contains("\u{202E}"))
    }

    @Test func esc_asks_before_dropping_what_was_typed_and_a_resize_keeps_it() throws {
        let (app, terminal, _, writes) = try app()
        _ = app.handle([.key(.char("e"))] + type("X"))
        // When the terminal is resized
        terminal.resize(to: TerminalSize(columns: 40, rows: 12))
        _ = app.handle(terminal.readKeys().map { .key($0) })
        #expect(frame(terminal).contains("ZoëX"), "\(frame(terminal))")
        // When Esc is pressed, then any key but y: the form stays
        _ = app.handle([.key(.escape)])
        #expect(frame(terminal).contains("Discard what you typed?"))
        _ = app.handle([.key(.char("n"))])
        #expect(app.stack.top is EditFormController)
        // When Esc and y: it closes, nothing handed on
        _ = app.handle([.key(.escape), .key(.char("y"))])
        #expect(app.stack.top is EntityListController && writes.saved.isEmpty)
    }

    @Test func a_pending_change_is_marked_on_its_row_and_counted_on_the_status_line() async throws {
        let (app, terminal, cache, _) = try app()
        // When a change to the second person (O'Neil) is recorded in the cache, as the fetcher does
        let now = ScreenSnapshotTests.fixedNow
        try await cache.write { session in
            _ = try session.enqueueUpdate(
                "Person(3)", changes: [.init(name: "firstName", value: .string("René"))], requestID: "r1", at: now)
        }
        // Then its row shows the change, marked, and the status line counts it
        let marked = try await eventually {
            let lines = terminal.lastFrame
            return lines.contains { $0.hasPrefix("•") && $0.contains("René") }
                && lines.last?.contains("1 pending") == true
        }
        #expect(marked, "\(frame(terminal))")
        // And the outbox screen lists it with what it changes
        _ = app.handle([.key(.char("o"))])
        #expect(frame(terminal).contains("firstName: Renée → René"), "\(frame(terminal))")
    }
}

extension EditFormTests {
    @Test func x_asks_naming_the_row_and_y_hands_the_delete_on_with_where_it_was_shown() throws {
        let (app, terminal, _, writes) = try app()
        // When x is pressed on O'Neil, Renée (the second row)
        _ = app.handle([.key(.down), .key(.char("x"))])
        // Then the list asks, naming it
        #expect(frame(terminal).contains("Delete “O'Neil, Renée”? y deletes it"), "\(frame(terminal))")
        // When any other key is pressed, nothing is deleted; when asked again and y pressed, it is
        _ = app.handle([.key(.char("n"))])
        #expect(writes.deleted.isEmpty && !frame(terminal).contains("Delete “"))
        _ = app.handle([.key(.delete), .key(.char("y"))])
        let deletion = try #require(writes.deleted.first)
        #expect(deletion.key == "Person(3)" && deletion.link == nil)
        guard case .list(let request)? = deletion.shownIn else {
            Issue.record("the delete should name the list it was shown in")
            return
        }
        #expect(request.path.canonical == "Person")
    }
}

extension EditFormTests {
    @Test func a_conflict_is_edited_on_their_version_with_mine_filled_in_and_sent_in_its_place() async throws {
        let (app, terminal, cache, writes) = try app()
        // Given a change to O'Neil's first name that met someone else's change of it
        let now = ScreenSnapshotTests.fixedNow
        let id = try await cache.write { session in
            let id = try session.enqueueUpdate(
                "Person(3)", changes: [.init(name: "firstName", value: .string("René"))], requestID: "r1", at: now)
            try session.conflictOutbox(
                id,
                theirs: [
                    .init(name: "personID", value: .int(3)), .init(name: "firstName", value: .string("Renata")),
                    .init(name: "lastName", value: .string("O'Neil-Smith")),
                ], theirsEtag: "W/\"9\"", error: "changed")
            return id
        }
        // When the outbox's e opens the change
        _ = app.handle([.key(.char("o"))])
        #expect(try await eventually { frame(terminal).contains("conflict") })
        _ = app.handle([.key(.char("e"))])
        // Then the form shows their last name with my first name
        let shown = frame(terminal)
        #expect(shown.contains("O'Neil-Smith") && shown.contains("René") && !shown.contains("Renata"), "\(shown)")
        // When it is saved with a further edit
        _ = app.handle([.key(.char("!")), .key(.enter)])
        // Then the edited values go in place of the change, relative to their version
        #expect(writes.resolved.count == 1 && writes.resolved.first?.0 == id)
        #expect(writes.resolved.first?.1 == .resend([.init(name: "firstName", value: .string("René!"))]))
        #expect(writes.saved.isEmpty)
    }
}

extension EditFormTests {
    @Test func a_value_of_megabytes_is_shown_read_only_and_the_form_stays_quick_to_draw() async throws {
        let (app, terminal, cache, writes) = try app()
        // Given a person whose last name a server made 2 MB long
        let now = ScreenSnapshotTests.fixedNow
        let huge = String(repeating: "Ærø\u{1B}[31m ", count: 200_000)
        try await cache.write { session in
            try session.upsertEntity(
                key: "Person(2)", entitySet: "Person", type: nil,
                properties: [
                    .init(name: "personID", value: .int(2)), .init(name: "firstName", value: .string("Zoë")),
                    .init(name: "lastName", value: .string(huge)),
                ], etag: nil, at: now, partial: false)
        }
        // When its form opens and the first name is changed
        _ = app.handle([.key(.char("e"))])
        let shown = frame(terminal)
        // Then the last name says why it cannot change here, drawn inert, and saving sends only the first name
        #expect(shown.contains("too long to change here"), "\(shown)")
        #expect(!shown.contains("\u{1B}"))
        _ = app.handle(type("!") + [.key(.enter)])
        #expect(writes.saved.first?.changes == [.init(name: "firstName", value: .string("Zoë!"))])
    }
}
