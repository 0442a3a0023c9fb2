import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Synchronization
import Testing

@testable import Sync

/// A set the service edits through drafts (issue 36, SAP RAP and CAP): a change is sent as its Fiori app sends it,
/// edit action on the active entity, the draft changed, prepared and activated, each step once with a request id of
/// its own; the activation's answer is the cache's copy. A stale version is a conflict, a lock a sentence. Its list
/// is of the active entities.
@Suite struct DraftOutboxTests {
    static let root = "http://cap.test/odata/v4/orders/"
    static let model: ServiceModel = {
        let document = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
            <edmx:Reference Uri="https://sap.github.io/odata-vocabularies/vocabularies/Common.xml">
              <edmx:Include Alias="Common" Namespace="com.sap.vocabularies.Common.v1"/>
            </edmx:Reference>
            <edmx:DataServices><Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Orders"><Key><PropertyRef Name="ID"/><PropertyRef Name="IsActiveEntity"/></Key>
                <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
                <Property Name="title" Type="Edm.String"/>
                <Property Name="IsActiveEntity" Type="Edm.Boolean" Nullable="false" DefaultValue="true"/>
                <Property Name="HasActiveEntity" Type="Edm.Boolean" Nullable="false" DefaultValue="false"/>
                <Property Name="HasDraftEntity" Type="Edm.Boolean" Nullable="false" DefaultValue="false"/>
              </EntityType>
              <Action Name="draftEdit" IsBound="true" EntitySetPath="in">
                <Parameter Name="in" Type="S.Orders"/><Parameter Name="PreserveChanges" Type="Edm.Boolean"/>
                <ReturnType Type="S.Orders"/></Action>
              <Action Name="draftPrepare" IsBound="true" EntitySetPath="in">
                <Parameter Name="in" Type="S.Orders"/><Parameter Name="SideEffectsQualifier" Type="Edm.String"/>
                <ReturnType Type="S.Orders"/></Action>
              <Action Name="draftActivate" IsBound="true" EntitySetPath="in">
                <Parameter Name="in" Type="S.Orders"/><ReturnType Type="S.Orders"/></Action>
              <EntityType Name="Customers"><Key><PropertyRef Name="ID"/></Key>
                <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
                <NavigationProperty Name="orders" Type="Collection(S.Orders)"/>
              </EntityType>
              <EntityContainer Name="EntityContainer"><EntitySet Name="Orders" EntityType="S.Orders"/>
                <EntitySet Name="Customers" EntityType="S.Customers">
                  <NavigationPropertyBinding Path="orders" Target="Orders"/></EntitySet>
              </EntityContainer>
              <Annotations Target="S.EntityContainer/Orders">
                <Annotation Term="Common.DraftRoot"><Record Type="Common.DraftRootType">
                  <PropertyValue Property="ActivationAction" String="S.draftActivate"/>
                  <PropertyValue Property="EditAction" String="S.draftEdit"/>
                  <PropertyValue Property="PreparationAction" String="S.draftPrepare"/>
                </Record></Annotation>
              </Annotations>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        do { return try EDMXParser.parse(Array(document.utf8)) } catch { fatalError("\(error)") }
    }()

    static let active = EntityKey(
        entitySet: "Orders",
        values: [.init(name: "ID", value: .int(1)), .init(name: "IsActiveEntity", value: .bool(true))])
    static let activeURL = root + "Orders(ID=1,IsActiveEntity=true)"
    static let draftURL = root + "Orders(ID=1,IsActiveEntity=false)"

    static func order(title: String, active: Bool, etag: String) -> TransportResponse {
        json(
            #"{"@odata.context":"$metadata#Orders/$entity","@odata.etag":"W/\"\#(etag)\"","ID":1,"title":"\#(title)","#
                + #""IsActiveEntity":\#(active),"HasActiveEntity":\#(!active),"HasDraftEntity":false}"#)
    }

    /// A CAP-shaped service: `answer` may replace what a step answers (by its method and URL).
    static func service(
        _ answer: @escaping @Sendable (TransportRequest) -> TransportResponse? = { _ in nil }
    ) -> FakeTransport {
        FakeTransport { request, _ in
            if let replaced = answer(request) { return replaced }
            switch (request.method, request.url) {
            case (.post, activeURL + "/S.draftEdit"): return Self.order(title: "Old", active: false, etag: "d1")
            case (.patch, draftURL), (.merge, draftURL): return TransportResponse(status: 204)
            case (.post, draftURL + "/S.draftPrepare"): return Self.order(title: "New", active: false, etag: "d2")
            case (.post, draftURL + "/S.draftActivate"): return Self.order(title: "New", active: true, etag: "2")
            default: return TransportResponse(status: 404)
            }
        }
    }

    func engine(_ transport: FakeTransport) throws -> (SyncEngine, CacheDatabase) {
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: Self.active, entitySet: "Orders", type: nil,
                properties: [
                    .init(name: "ID", value: .int(1)), .init(name: "title", value: .string("Old")),
                    .init(name: "IsActiveEntity", value: .bool(true)),
                ], etag: "W/\"1\"", at: Date(), partial: false)
        }
        let engine = try SyncEngine.forTesting(
            root: Self.root, transport: transport, model: Self.model, cache: cache
        ) { $0.writeRetry = .quickWrites }
        return (engine, cache)
    }

    @Test func the_draft_root_is_read_and_a_draft_is_the_same_key_not_active() throws {
        let actions = try #require(Self.model.draftActions(ofSet: "Orders"))
        #expect(
            actions == DraftActions(activation: "S.draftActivate", edit: "S.draftEdit", preparation: "S.draftPrepare"))
        #expect(Self.model.draftKey(of: Self.active)?.canonical == "Orders(ID=1,IsActiveEntity=false)")
        // (a draft's key is none of its own; another set's key is not turned into one)
        #expect(Self.model.draftKey(of: try #require(Self.model.draftKey(of: Self.active))) == nil)
        // The properties the service keeps for itself are no form's to set, and those that say nothing on a list of
        // active entities are not its columns
        let properties = try #require(Self.model.entityType(ofSet: "Orders")?.properties)
        for name in ["IsActiveEntity", "HasActiveEntity", "HasDraftEntity"] {
            let property = try #require(properties.first { $0.name == name })
            #expect(!property.isUpdatable && !property.isCreatable)
            #expect(property.isHidden == (name != "HasDraftEntity"))
        }
        #expect(properties.first { $0.name == "title" }?.isUpdatable == true)
    }

    @Test func a_change_is_made_through_a_draft_edited_prepared_and_activated() async throws {
        let transport = Self.service()
        let (engine, cache) = try engine(transport)
        // When the title is changed
        engine.save(EntityChange(key: Self.active, changes: [.init(name: "title", value: .string("New"))]))
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        // Then the four steps went, in order, each once
        let sent = await transport.requests
        #expect(
            sent.map { "\($0.method.rawValue) \($0.url)" } == [
                "POST \(Self.activeURL)/S.draftEdit", "PATCH \(Self.draftURL)", "POST \(Self.draftURL)/S.draftPrepare",
                "POST \(Self.draftURL)/S.draftActivate",
            ])
        // The edit against the version the change was made on, a draft of mine already there discarded; the draft
        // changed as a whole (`If-Match: *`); each step with a request id of its own
        #expect(sent[0].headers["If-Match"] == "W/\"1\"")
        #expect(String(decoding: sent[0].body ?? [], as: UTF8.self) == #"{"PreserveChanges":false}"#)
        #expect(sent[1].headers["If-Match"] == "*")
        #expect(String(decoding: sent[1].body ?? [], as: UTF8.self) == #"{"title":"New"}"#)
        let ids = sent.compactMap { $0.headers["Repeatability-Request-ID"] }
        #expect(ids.count == 4 && Set(ids).count == 4)
        // And the active entity is the activation's answer
        #expect(try cache.entity(Self.active)?["title"] == .string("New"))
        #expect(try cache.entity(Self.active)?.etag == "W/\"2\"")
    }

    @Test func a_draft_another_user_holds_refuses_the_edit_and_nothing_else_is_sent() async throws {
        // Given a service where another user holds the draft (the edit action answers 423, as CAP does)
        let transport = Self.service { request in
            guard request.url.hasSuffix("/S.draftEdit") else { return nil }
            return json(#"{"error":{"code":"DRAFT_LOCKED","message":"Locked by ALICE"}}"#, status: 423)
        }
        let (engine, cache) = try engine(transport)
        engine.save(EntityChange(key: Self.active, changes: [.init(name: "title", value: .string("New"))]))
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().first?.state == .failed })
        #expect(try cache.outboxEntries().first?.lastError?.contains("Locked by ALICE") == true)
        try await Task.sleep(for: .milliseconds(100))
        #expect(await transport.requests.count == 1)
    }

    @Test func a_change_activated_whose_answer_was_lost_is_settled_not_a_conflict() async throws {
        // Given a service that activates the change, but whose answer is lost on the way back
        let activations = Mutex(0)
        let transport = FakeTransport { request, _ in
            switch (request.method, request.url) {
            case (.post, Self.activeURL + "/S.draftEdit"):
                // (once activated, the version the change was made on is gone)
                return activations.withLock { $0 } > 0
                    ? TransportResponse(status: 412) : Self.order(title: "Old", active: false, etag: "d1")
            case (.patch, Self.draftURL): return TransportResponse(status: 204)
            case (.post, Self.draftURL + "/S.draftPrepare"): return Self.order(title: "New", active: false, etag: "d2")
            case (.post, Self.draftURL + "/S.draftActivate"):
                activations.withLock { $0 += 1 }
                throw ODataError(kind: .transport, message: "the connection was reset", url: request.url)
            case (.get, _): return Self.order(title: "New", active: true, etag: "2")
            default: return TransportResponse(status: 404)
            }
        }
        let (engine, cache) = try engine(transport)
        engine.save(EntityChange(key: Self.active, changes: [.init(name: "title", value: .string("New"))]))
        await engine.flushIntents()
        // Then, tried again, the edit meets 412; the service's copy holds the change: settled with it, no conflict
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        #expect(try cache.entity(Self.active)?["title"] == .string("New"))
        #expect(try cache.entity(Self.active)?.etag == "W/\"2\"")
        #expect(activations.withLock { $0 } == 1)
        #expect(await transport.requests.filter { $0.url.hasSuffix("/S.draftEdit") }.count == 2)
    }

    @Test func an_entity_changed_on_the_service_since_is_a_conflict_and_nothing_else_is_sent() async throws {
        let transport = Self.service { request in
            if request.url.hasSuffix("/S.draftEdit") { return TransportResponse(status: 412) }
            if request.method == .get { return Self.order(title: "Theirs", active: true, etag: "5") }
            return nil
        }
        let (engine, cache) = try engine(transport)
        engine.save(EntityChange(key: Self.active, changes: [.init(name: "title", value: .string("New"))]))
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().first?.state == .conflict })
        #expect(await transport.requests.filter { $0.method != .get }.count == 1)
        #expect(try cache.outboxEntries().first?.theirs?.first { $0.name == "title" }?.value == .string("Theirs"))
    }

    @Test func a_draft_locked_by_another_user_is_the_services_sentence_not_a_retry() async throws {
        let transport = Self.service { request in
            guard request.method == .patch || request.method == .merge else { return nil }
            return json(
                #"{"error":{"code":"DRAFT_LOCKED_BY_ANOTHER_USER","message":"The entity is locked by ALICE"}}"#,
                status: 423)
        }
        let (engine, cache) = try engine(transport)
        engine.save(EntityChange(key: Self.active, changes: [.init(name: "title", value: .string("New"))]))
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().first?.state == .failed })
        let entry = try #require(try cache.outboxEntries().first)
        #expect(entry.lastError?.contains("locked by ALICE") == true, "\(entry.lastError ?? "")")
        // (edit, then the refused change: nothing prepared or activated, nothing tried again)
        try await Task.sleep(for: .milliseconds(100))
        #expect(await transport.requests.count == 2)
    }

    @Test func a_new_entity_is_made_a_draft_then_activated_and_known_by_its_active_key() async throws {
        let made = Mutex(false)
        let transport = FakeTransport { request, _ in
            switch (request.method, request.url) {
            case (.post, Self.root + "Orders"):
                // (as CAP makes one posted to a draft-enabled set)
                return json(
                    #"{"@odata.context":"$metadata#Orders/$entity","ID":7,"title":"Fresh","IsActiveEntity":false,"#
                        + #""HasActiveEntity":false,"HasDraftEntity":false}"#, status: 201)
            case (.post, Self.root + "Orders(ID=7,IsActiveEntity=false)/S.draftActivate"):
                made.withLock { $0 = true }
                return json(
                    #"{"@odata.context":"$metadata#Orders/$entity","@odata.etag":"W/\"1\"","ID":7,"title":"Fresh","#
                        + #""IsActiveEntity":true,"HasActiveEntity":false,"HasDraftEntity":false}"#)
            default: return TransportResponse(status: 404)
            }
        }
        let (engine, cache) = try engine(transport)
        engine.create(
            EntityCreation(
                entitySet: "Orders",
                properties: [.init(name: "ID", value: .int(7)), .init(name: "title", value: .string("Fresh"))],
                addedTo: .list(ListRequest(entitySet: "Orders"))))
        await engine.flushIntents()
        #expect(
            try await eventually { try cache.outboxEntries().isEmpty },
            "\((try? cache.outboxEntries())?.map { "\($0.state) \($0.lastError ?? "")" } ?? [])")
        // Then it was posted, then its draft activated, once each
        #expect(made.withLock { $0 })
        #expect(
            await transport.requests.map(\.url) == [
                Self.root + "Orders", Self.root + "Orders(ID=7,IsActiveEntity=false)/S.draftActivate",
            ])
        // And the cache knows it by its active key, not by the draft's
        let active = EntityKey(
            entitySet: "Orders",
            values: [.init(name: "ID", value: .int(7)), .init(name: "IsActiveEntity", value: .bool(true))])
        #expect(try cache.entity(active)?["title"] == .string("Fresh"))
        #expect(try cache.entity(try #require(Self.model.draftKey(of: active))) == nil)
    }

    @Test func a_new_entity_whose_draft_is_not_activated_says_so_and_where_it_is() async throws {
        let transport = FakeTransport { request, _ in
            if request.url == Self.root + "Orders" {
                return json(
                    #"{"ID":7,"title":"Fresh","IsActiveEntity":false,"HasActiveEntity":false,"HasDraftEntity":false}"#,
                    status: 201)
            }
            return json(#"{"error":{"code":"400","message":"The title is too short"}}"#, status: 400)
        }
        let (engine, cache) = try engine(transport)
        engine.create(
            EntityCreation(
                entitySet: "Orders",
                properties: [.init(name: "ID", value: .int(7)), .init(name: "title", value: .string("F"))],
                addedTo: .list(ListRequest(entitySet: "Orders"))))
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().first?.state == .failed })
        let said = try cache.outboxEntries().first?.lastError ?? ""
        #expect(said.contains("draft Orders(ID=7,IsActiveEntity=false)") && said.contains("too short"), "\(said)")
        #expect(await transport.requests.count == 2)
    }

    static let madeDraftURL = root + "Orders(ID=7,IsActiveEntity=false)"

    /// A new order, as its create queues it.
    static let newOrder = EntityCreation(
        entitySet: "Orders",
        properties: [.init(name: "ID", value: .int(7)), .init(name: "title", value: .string("F"))],
        addedTo: .list(ListRequest(entitySet: "Orders")))

    static func madeOrder(title: String, active: Bool, status: Int = 200) -> TransportResponse {
        json(
            #"{"@odata.context":"$metadata#Orders/$entity","ID":7,"title":"\#(title)","IsActiveEntity":\#(active),"#
                + #""HasActiveEntity":false,"HasDraftEntity":false}"#, status: status)
    }

    @Test func a_new_entity_whose_activation_was_refused_activates_that_draft_when_sent_again_not_a_second_one()
        async throws
    {
        // Given a service that refuses a short title at activation, and makes a draft of every order posted
        let titled = Mutex(false)
        let transport = FakeTransport { request, _ in
            switch (request.method, request.url) {
            case (.post, Self.root + "Orders"): return Self.madeOrder(title: "F", active: false, status: 201)
            case (.patch, Self.madeDraftURL):
                titled.withLock { $0 = true }
                return TransportResponse(status: 204)
            case (.post, Self.madeDraftURL + "/S.draftActivate"):
                return titled.withLock { $0 }
                    ? Self.madeOrder(title: "Fine", active: true)
                    : json(#"{"error":{"code":"400","message":"The title is too short"}}"#, status: 400)
            default: return TransportResponse(status: 404)
            }
        }
        let (engine, cache) = try engine(transport)
        engine.create(Self.newOrder)
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().first?.state == .failed })
        let entry = try #require(try cache.outboxEntries().first)
        #expect(entry.lastError?.contains("Sent again, that draft is activated") == true, "\(entry.lastError ?? "")")
        // When the user mends the title and sends it again
        engine.resolve(
            outboxEntry: entry.id,
            .resend([.init(name: "ID", value: .int(7)), .init(name: "title", value: .string("Fine"))]))
        // Then the draft the service made takes it (its key left out) and is activated; nothing is posted again
        #expect(
            try await eventually { try cache.outboxEntries().isEmpty },
            "\((try? cache.outboxEntries())?.map { "\($0.state) \($0.lastError ?? "")" } ?? [])")
        let requests = await transport.requests
        #expect(
            requests.map { "\($0.method.rawValue) \($0.url.dropFirst(Self.root.count))" } == [
                "POST Orders", "POST Orders(ID=7,IsActiveEntity=false)/S.draftActivate",
                "PATCH Orders(ID=7,IsActiveEntity=false)", "POST Orders(ID=7,IsActiveEntity=false)/S.draftActivate",
            ])
        let patch = try #require(requests.first { $0.method == .patch })
        #expect(String(decoding: patch.body ?? [], as: UTF8.self).contains(#""title":"Fine""#))
        #expect(!String(decoding: patch.body ?? [], as: UTF8.self).contains(#""ID""#))
        #expect(patch.headers["If-Match"] == "*")
        let draft = try #require(EntityKey(canonical: "Orders(ID=7,IsActiveEntity=false)"))
        let active = try #require(ServiceModel.activeKey(of: draft))
        #expect(try cache.entity(active)?["title"] == .string("Fine"))
    }

    @Test func a_new_entity_whose_activation_answer_was_lost_is_settled_by_the_active_entity_not_made_twice()
        async throws
    {
        // Given a service whose answer to the activation is lost (it ran: the draft is gone, the order active)
        let activated = Mutex(false)
        let transport = FakeTransport { request, _ in
            switch (request.method, request.url) {
            case (.post, Self.root + "Orders"): return Self.madeOrder(title: "F", active: false, status: 201)
            case (.post, Self.madeDraftURL + "/S.draftActivate"):
                activated.withLock { $0 = true }
                throw ODataError(kind: .transport, message: "the connection was reset", url: request.url)
            case (.patch, Self.madeDraftURL):
                return activated.withLock { $0 } ? TransportResponse(status: 404) : TransportResponse(status: 204)
            case (.get, Self.root + "Orders(ID=7,IsActiveEntity=true)"):
                return Self.madeOrder(title: "F", active: true)
            default: return TransportResponse(status: 404)
            }
        }
        let (engine, cache) = try engine(transport)
        engine.create(Self.newOrder)
        await engine.flushIntents()
        // Then it is tried again by itself, finds the active order, and is settled with it
        #expect(
            try await eventually { try cache.outboxEntries().isEmpty },
            "\((try? cache.outboxEntries())?.map { "\($0.state) \($0.lastError ?? "")" } ?? [])")
        let requests = await transport.requests
        #expect(requests.filter { $0.method == .post && $0.url == Self.root + "Orders" }.count == 1)
        #expect(requests.filter { $0.url.hasSuffix("/S.draftActivate") }.count == 1)
        #expect(requests.last?.method == .get)
        let active = EntityKey(
            entitySet: "Orders",
            values: [.init(name: "ID", value: .int(7)), .init(name: "IsActiveEntity", value: .bool(true))])
        #expect(try cache.entity(active)?["title"] == .string("F"))
    }

    @Test func values_edited_after_a_lost_activation_follow_as_a_change_and_an_unanswered_look_keeps_the_draft()
        async throws
    {
        // Given a service that refuses the first activation, and whose draft is gone when the edited values come
        // (its activation ran after all); its active copy cannot be read at first (503)
        let looks = Mutex(0)
        let transport = FakeTransport { request, _ in
            switch (request.method, request.url) {
            case (.post, Self.root + "Orders"): return Self.madeOrder(title: "F", active: false, status: 201)
            case (.post, Self.madeDraftURL + "/S.draftActivate"):
                return json(#"{"error":{"code":"400","message":"The title is too short"}}"#, status: 400)
            case (.patch, Self.madeDraftURL): return TransportResponse(status: 404)
            case (.get, Self.root + "Orders(ID=7,IsActiveEntity=true)"):
                let look = looks.withLock {
                    $0 += 1
                    return $0
                }
                return look == 1 ? TransportResponse(status: 503) : Self.madeOrder(title: "F", active: true)
            default: return TransportResponse(status: 404)
            }
        }
        let (engine, cache) = try engine(transport)
        engine.create(Self.newOrder)
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().first?.state == .failed })
        let id = try #require(try cache.outboxEntries().first?.id)
        engine.resolve(
            outboxEntry: id, .resend([.init(name: "ID", value: .int(7)), .init(name: "title", value: .string("Fine"))]))
        // Then, the active order not to be read, the create waits with its draft for the next attempt
        #expect(
            try await eventually {
                // (queued again, not still on its way: the wait the retry set is on it)
                let entry = try cache.outboxEntries().first
                return entry?.state == .pending && entry?.lastError?.contains("404") == true
                    && looks.withLock { $0 } == 1
            })
        guard case .create(_, _, let kept)? = try cache.outboxEntries().first?.write else {
            Issue.record("not a create")
            return
        }
        #expect(kept?.canonical == "Orders(ID=7,IsActiveEntity=false)")
        // (this engine's clock stands still: its retry is made due as time passing would)
        try await cache.write { try $0.makeQueuedWritesDue() }
        await engine.flushOutbox()
        // Then the create settles with the active order, and the edit follows as a change of it
        let active = EntityKey(
            entitySet: "Orders",
            values: [.init(name: "ID", value: .int(7)), .init(name: "IsActiveEntity", value: .bool(true))])
        #expect(
            try await eventually {
                let entries = try cache.outboxEntries()
                return entries.count == 1 && entries[0].kind == .update && entries[0].entityKey == active
            }, "\((try? cache.outboxEntries())?.map { "\($0.kind) \($0.state) \($0.lastError ?? "")" } ?? [])")
        #expect(try cache.outboxEntries().first?.changes.contains { $0.value == .string("Fine") } == true)
        #expect(looks.withLock { $0 } == 2)
        // (nothing posted twice)
        #expect(await transport.requests.filter { $0.method == .post && $0.url == Self.root + "Orders" }.count == 1)
    }

    @Test func a_new_entity_whose_draft_is_gone_from_the_service_says_so_and_is_made_anew_when_sent_again()
        async throws
    {
        // Given a service that refuses the activation, then loses the draft (discarded in its Fiori app)
        let transport = FakeTransport { request, number in
            switch (request.method, request.url) {
            case (.post, Self.root + "Orders"): return Self.madeOrder(title: "F", active: false, status: 201)
            case (.post, Self.madeDraftURL + "/S.draftActivate"):
                return json(#"{"error":{"code":"400","message":"The title is too short"}}"#, status: 400)
            default: return TransportResponse(status: 404)
            }
        }
        let (engine, cache) = try engine(transport)
        engine.create(Self.newOrder)
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().first?.state == .failed })
        let id = try #require(try cache.outboxEntries().first?.id)
        engine.resolve(outboxEntry: id, .retry)
        // Then it says the draft is gone, and forgets it: sent again, it is posted anew
        #expect(
            try await eventually {
                try cache.outboxEntries().first?.lastError?.contains("is no longer there") == true
            })
        guard case .create(_, _, let draft) = try #require(try cache.outboxEntries().first).write else {
            Issue.record("not a create")
            return
        }
        #expect(draft == nil)
        #expect(await transport.requests.map(\.method).suffix(2) == [.patch, .get])
    }

    @Test func a_draft_enabled_list_is_of_the_active_entities_and_so_is_a_relations_list_of_them() async throws {
        let transport = FakeTransport { _, _ in json(#"{"@odata.count":0,"value":[]}"#) }
        let (engine, _) = try engine(transport)
        // (a filter typed by the user is kept beside it)
        engine.screenDidShow(
            .list(ListRequest(entitySet: "Orders", filter: "title eq 'A' or title eq 'B'")), visible: 0..<10,
            screen: ScreenID(1))
        let customerOrders = ResourcePath(segments: [
            .init(name: "Customers", key: [.init(name: nil, value: .int(4))]), .init(name: "orders"),
        ])
        engine.screenDidShow(.list(ListRequest(path: customerOrders)), visible: 0..<10, screen: ScreenID(2))
        engine.screenDidShow(.list(ListRequest(entitySet: "Customers")), visible: 0..<10, screen: ScreenID(3))
        await engine.flushIntents()
        await engine.waitUntilIdle()
        let urls = await transport.requests.compactMap { $0.url.removingPercentEncoding }
        let orders = try #require(urls.first { $0.contains("/Orders?") })
        #expect(orders.contains("$filter=(title eq 'A' or title eq 'B') and (IsActiveEntity eq true)"), "\(orders)")
        let related = try #require(urls.first { $0.contains("/Customers(4)/orders?") })
        #expect(related.contains("$filter=IsActiveEntity eq true"), "\(related)")
        let customers = try #require(urls.first { $0.contains("/Customers?") })
        #expect(!customers.contains("IsActiveEntity"), "\(customers)")
    }
}

extension DraftOutboxTests {
    /// A new entity whose activation the service refused, dropped by the user: the draft the service made of it goes
    /// too (`DELETE`, whatever its version), through the outbox like any write; one the service no longer holds
    /// (404) settles all the same.
    @Test(arguments: [204, 404])
    func dropping_a_new_entity_whose_activation_was_refused_deletes_the_draft_it_left(answer: Int) async throws {
        let transport = FakeTransport { request, _ in
            switch (request.method, request.url) {
            case (.post, Self.root + "Orders"): return Self.madeOrder(title: "F", active: false, status: 201)
            case (.post, Self.madeDraftURL + "/S.draftActivate"):
                return json(#"{"error":{"code":"400","message":"The title is too short"}}"#, status: 400)
            case (.delete, Self.madeDraftURL): return TransportResponse(status: answer)
            default: return TransportResponse(status: 500)
            }
        }
        let (engine, cache) = try engine(transport)
        engine.create(Self.newOrder)
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().first?.state == .failed })
        let entry = try #require(try cache.outboxEntries().first)
        // When the user drops it
        engine.resolve(outboxEntry: entry.id, .discard)
        // Then the draft is deleted on the service, and nothing is left to send
        #expect(
            try await eventually { try cache.outboxEntries().isEmpty },
            "\((try? cache.outboxEntries())?.map { "\($0.kind) \($0.state) \($0.lastError ?? "")" } ?? [])")
        let requests = await transport.requests
        #expect(
            requests.map { "\($0.method.rawValue) \($0.url.dropFirst(Self.root.count))" } == [
                "POST Orders", "POST Orders(ID=7,IsActiveEntity=false)/S.draftActivate",
                "DELETE Orders(ID=7,IsActiveEntity=false)",
            ])
        #expect(requests.last?.headers["If-Match"] == "*")
        // And the new order shows nowhere here
        #expect(try cache.listWindow(ListRequest(entitySet: "Orders").key, range: 0..<10).rows.isEmpty)
    }
}

extension DraftOutboxTests {
    /// The delete of a dropped create's draft refused (the draft was never cached here): `r` sends it again.
    @Test func a_refused_delete_of_a_dropped_drafts_goes_again_when_retried() async throws {
        let refusals = Mutex(1)
        let transport = FakeTransport { request, _ in
            switch (request.method, request.url) {
            case (.post, Self.root + "Orders"): return Self.madeOrder(title: "F", active: false, status: 201)
            case (.post, Self.madeDraftURL + "/S.draftActivate"):
                return json(#"{"error":{"code":"400","message":"The title is too short"}}"#, status: 400)
            case (.delete, Self.madeDraftURL):
                let refused = refusals.withLock { left -> Bool in
                    defer { left -= 1 }
                    return left > 0
                }
                return refused
                    ? json(#"{"error":{"code":"403","message":"Not now"}}"#, status: 403)
                    : TransportResponse(status: 204)
            default: return TransportResponse(status: 500)
            }
        }
        let (engine, cache) = try engine(transport)
        engine.create(Self.newOrder)
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().first?.state == .failed })
        engine.resolve(outboxEntry: try #require(try cache.outboxEntries().first).id, .discard)
        #expect(
            try await eventually {
                let entries = try cache.outboxEntries()
                return entries.count == 1 && entries[0].kind == .delete && entries[0].state == .failed
            })
        engine.resolve(outboxEntry: try #require(try cache.outboxEntries().first).id, .retry)
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        #expect(await transport.requests.filter { $0.method == .delete }.count == 2)
    }
}
