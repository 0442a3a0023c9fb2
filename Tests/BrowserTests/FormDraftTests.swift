import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// The form on an entity of a set edited through drafts (issue 36), at the write seam: it asks for the draft as it
/// opens, resumes the values a draft of the user's own holds, keeps each field left changed in it, shows what the
/// service changed in the draft since (a side effect) where the user has not typed, and discards it on Esc.
@MainActor @Suite struct FormDraftTests {
    static let model = DraftOrders.model

    static func key(active: Bool) -> EntityKey { DraftOrders.key(active: active) }

    static func values(title: String, note: String, total: Int64, active: Bool) -> [ODataProperty] {
        [
            .init(name: "ID", value: .int(1)), .init(name: "title", value: .string(title)),
            .init(name: "note", value: .string(note)), .init(name: "total", value: .int(total)),
            .init(name: "IsActiveEntity", value: .bool(active)),
        ]
    }

    struct Setup {
        var app: BrowserApp
        var terminal: HeadlessTerminal
        var writes: RecordingWrites
        var cache: CacheDatabase
    }

    func open() throws -> Setup {
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: Self.key(active: true), entitySet: "Orders", type: nil,
                properties: Self.values(title: "Old", note: "", total: 7, active: true), etag: "W/\"1\"", at: Date(),
                partial: false)
        }
        let writes = RecordingWrites()
        let model = Self.model
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), writes: writes, model: model,
            profile: DisplayProfile.defaults(for: model))
        let entity = try #require(try cache.entity(Self.key(active: true)))
        let form = try #require(EditFormController(environment: environment, entity: entity, breadcrumb: "Orders"))
        let (app, terminal) = BrowserApp.presented(environment, size: TerminalSize(columns: 100, rows: 14), root: form)
        return Setup(app: app, terminal: terminal, writes: writes, cache: cache)
    }

    /// Stores the service's draft as the fetcher would.
    func serviceDraft(_ setup: Setup, title: String, note: String, total: Int64) throws {
        try setup.cache.writeBlocking { session in
            try session.upsertEntity(
                key: Self.key(active: false), entitySet: "Orders", type: nil,
                properties: Self.values(title: title, note: note, total: total, active: false), etag: "W/\"d\"",
                at: Date(), partial: false)
        }
    }

    /// Waits (at most 3 s) until the frame holds `text`.
    func frame(_ setup: Setup, holding text: String) async throws -> String {
        for _ in 0..<300 {
            setup.app.setNeedsDisplay()
            setup.app.presentIfNeeded()
            let frame = setup.terminal.lastFrame.joined(separator: "\n")
            if frame.contains(text) { return frame }
            try await Task.sleep(for: .milliseconds(10))
        }
        return setup.terminal.lastFrame.joined(separator: "\n")
    }

    @Test func the_draft_is_asked_for_resumed_kept_field_by_field_and_shows_what_the_service_changed() async throws {
        let setup = try open()
        #expect(setup.writes.drafts == ["edit Orders(ID=1,IsActiveEntity=true)"])
        // A draft of the user's own, left with a note: resumed into the form
        try serviceDraft(setup, title: "Old", note: "Left here", total: 7)
        let resumed = try await frame(setup, holding: "Your draft on the service is resumed: 1 field holds")
        #expect(resumed.contains("Left here"), "\(resumed)")
        // A title typed and left: kept in the draft at once
        _ = setup.app.handle([.key(.ctrl("u"))] + "New".map { .key(.char($0)) } + [.key(.tab)])
        #expect(setup.writes.drafts.last == "change title=string(\"New\")")
        // The service's answer works out a new total: shown, the title as typed
        try serviceDraft(setup, title: "New", note: "Left here", total: 42)
        let changed = try await frame(setup, holding: "42")
        #expect(changed.contains("New") && !changed.contains(" 7 "), "\(changed)")
        // Esc asks, then the draft is discarded
        _ = setup.app.handle([.key(.escape)])
        #expect(try await frame(setup, holding: "and the draft on the service?").contains("y discards"))
        _ = setup.app.handle([.key(.char("y"))])
        #expect(setup.writes.drafts.last == "discard Orders(ID=1,IsActiveEntity=true)")
    }

    @Test func a_field_kept_in_the_draft_then_typed_back_is_saved_as_typed() async throws {
        let setup = try open()
        try serviceDraft(setup, title: "Old", note: "", total: 7)
        _ = try await frame(setup, holding: "Editing a draft on the service")
        // The title changed and left (kept in the draft), then typed back as it came, and saved
        _ = setup.app.handle([.key(.ctrl("u"))] + "New".map { .key(.char($0)) } + [.key(.tab), .key(.backTab)])
        _ = setup.app.handle([.key(.ctrl("u"))] + "Old".map { .key(.char($0)) } + [.key(.enter)])
        // The save says so: the draft holds New, which the activation would otherwise keep
        #expect(setup.writes.saved.last?.changes == [ODataProperty(name: "title", value: .string("Old"))])
    }
}
