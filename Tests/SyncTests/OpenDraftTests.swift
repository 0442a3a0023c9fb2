import CarDealerTestSupport
import DemoServer
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Testing

@testable import Sync

/// The draft of an entity a form is open on (issue 36), against the demo service's work orders at its v4 root on
/// 127.0.0.1, as a CAP service keeps them: made when the form opens, each field kept in it, activated by the save
/// without being made again, discarded by Esc, resumed when the user's own is there, and refused with the service's
/// sentence when another user holds it. Each outcome is read back from the service with plain requests.
@Suite(.serialized) struct OpenDraftTests {
    struct Setting {
        var root: String
        var engine: SyncEngine
        var cache: CacheDatabase
    }

    func withService(_ body: (Setting) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "open-drafts-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 20, dataPath: directory + "/demo.sqlite"))
        let root = server.version4URL
        let transport = HTTPClientTransport(timeout: 10)
        let opened = try await MetadataLoader.open(root: root, transport: transport) { _ in
            directory + "/cache.sqlite"
        }
        let engine = SyncEngine(
            configuration: SyncEngine.Configuration(serviceRoot: root), cache: opened.cache, transport: transport,
            model: opened.model)
        do {
            try await body(Setting(root: root, engine: engine, cache: opened.cache))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static func order(_ id: Int, active: Bool = true) -> EntityKey {
        EntityKey(
            entitySet: "WorkOrder",
            values: [.init(name: "ID", value: .int(Int64(id))), .init(name: "IsActiveEntity", value: .bool(active))])
    }

    /// `METHOD root + relative` on the service, as a plain client.
    func send(
        _ root: String, _ method: String, _ relative: String, _ body: String? = nil
    ) async throws
        -> TransportResponse
    {
        var request = TransportRequest(url: root + relative, dialect: .v4)
        request.method = try #require(RequestMethod(rawValue: method))
        if let body {
            request.body = Array(body.utf8)
            request.headers["Content-Type"] = "application/json"
        }
        return try await HTTPClientTransport(timeout: 10).send(request)
    }

    /// The title of the work order's copy on the service; nil when it has none (404).
    func title(_ root: String, _ key: EntityKey) async throws -> String? {
        let response = try await send(root, "GET", key.canonical)
        guard response.status == 200,
            case .entity(let entity) = try PayloadDecoder(serviceRoot: root, dialect: .v4).decode(response.body),
            case .string(let title)? = entity["title"]
        else { return nil }
        return title
    }

    /// The work order as the engine caches it when a screen shows it.
    func cached(_ setting: Setting, _ key: EntityKey) async throws -> CachedEntity {
        setting.engine.screenDidShow(.entity(key), visible: 0..<1, screen: ScreenID(1))
        #expect(try await eventually { try setting.cache.entity(key) != nil })
        return try #require(try setting.cache.entity(key))
    }

    func requests(_ setting: Setting, containing text: String) throws -> [String] {
        try setting.cache.requestLog().map(\.url).filter { $0.contains(text) }
    }

    @Test func the_draft_is_made_when_the_form_opens_keeps_each_field_and_the_save_activates_it() async throws {
        try await withService { setting in
            let (root, engine) = (setting.root, setting.engine)
            let key = Self.order(2)
            let shown = try await cached(setting, key)
            engine.editDraft(of: key, etag: shown.etag)
            // Made at once, on the service and in the cache, before anything is saved.
            #expect(try await eventually { try await title(root, Self.order(2, active: false)) != nil })
            #expect(try await eventually { try setting.cache.entity(Self.order(2, active: false)) != nil })
            engine.changeDraft(EntityChange(key: key, changes: [ODataProperty(name: "title", value: .string("Kept"))]))
            #expect(try await eventually { try await title(root, Self.order(2, active: false)) == "Kept" })
            // (the cache holds the draft as the service answered: its last change is the service's)
            let draftCopy = { try setting.cache.entity(Self.order(2, active: false)) }
            #expect(try await eventually { try draftCopy()?["title"] == .string("Kept") })
            #expect(try draftCopy()?["modifiedAt"] != shown["modifiedAt"])
            #expect(
                try await title(root, key) == shown["title"].flatMap { if case .string(let s) = $0 { s } else { nil } })
            engine.save(
                EntityChange(
                    key: key, changes: [ODataProperty(name: "title", value: .string("Kept"))], baseEtag: shown.etag))
            #expect(try await eventually { try await title(root, key) == "Kept" })
            #expect(try await eventually { try await title(root, Self.order(2, active: false)) == nil })
            #expect(try await eventually { try setting.cache.outboxEntries().isEmpty })
            // The draft was made once: the save took the one the form opened.
            #expect(try requests(setting, containing: "draftEdit").count == 1)
            #expect(try requests(setting, containing: "draftActivate").count == 1)
        }
    }

    @Test func leaving_the_form_discards_its_draft_and_the_active_one_is_as_it_was() async throws {
        try await withService { setting in
            let (root, engine) = (setting.root, setting.engine)
            let key = Self.order(2)
            let shown = try await cached(setting, key)
            let before = try await title(root, key)
            engine.editDraft(of: key, etag: shown.etag)
            #expect(try await eventually { try await title(root, Self.order(2, active: false)) != nil })
            engine.changeDraft(EntityChange(key: key, changes: [ODataProperty(name: "title", value: .string("Gone"))]))
            engine.discardDraft(of: key)
            #expect(try await eventually { try await title(root, Self.order(2, active: false)) == nil })
            #expect(try await eventually { try setting.cache.outboxEntries().isEmpty })
            #expect(try await title(root, key) == before)
            #expect(try requests(setting, containing: "draftActivate").isEmpty)
        }
    }

    @Test func a_draft_of_the_users_own_left_on_the_service_is_resumed_with_its_values() async throws {
        try await withService { setting in
            let (root, engine) = (setting.root, setting.engine)
            let key = Self.order(2)
            let shown = try await cached(setting, key)
            // Left by an earlier session (or the Fiori app): made and changed, never activated.
            let made = try await send(
                root, "POST", key.canonical + "/edmexampleModel.draftEdit", #"{"PreserveChanges":false}"#)
            #expect(made.status == 201)
            let patched = try await send(
                root, "PATCH", Self.order(2, active: false).canonical, #"{"title":"Left here"}"#)
            #expect((200..<300).contains(patched.status))
            engine.editDraft(of: key, etag: shown.etag)
            #expect(
                try await eventually {
                    try setting.cache.entity(Self.order(2, active: false))?["title"] == .string("Left here")
                })
            // Resumed, not made anew: the service's draft still holds it.
            #expect(try await title(root, Self.order(2, active: false)) == "Left here")
        }
    }

    @Test func a_draft_another_user_holds_is_the_services_sentence_and_no_draft_is_open() async throws {
        try await withService { setting in
            let engine = setting.engine
            let key = Self.order(3)
            let shown = try await cached(setting, key)
            engine.editDraft(of: key, etag: shown.etag)
            #expect(try await eventually { await engine.lastError?.problem.description.contains("ALICE") == true })
            #expect(await engine.outbox.openDrafts.isEmpty)
        }
    }
}
