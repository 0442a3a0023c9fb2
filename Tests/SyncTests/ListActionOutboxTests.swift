import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Synchronization
import Testing

@testable import Sync

/// Actions on a list or on the service go through the outbox too (issue 36): queued under a call of their own (they
/// wait for no write and hold none up), sent once with a request id to the import or the list's path, no entity read
/// after; one on a list leaves that set's lists not fresh, so a list on screen is read again.
@Suite struct ListActionOutboxTests {
    static let root = "http://v4.test/garage/"
    static let model: ServiceModel = {
        let document = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
            <Schema Namespace="G" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Car"><Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                <Property Name="make" Type="Edm.String"/>
              </EntityType>
              <Action Name="RenameMake" IsBound="true">
                <Parameter Name="cars" Type="Collection(G.Car)" Nullable="false"/>
                <Parameter Name="old" Type="Edm.String" Nullable="false"/>
                <Parameter Name="new" Type="Edm.String" Nullable="false"/>
              </Action>
              <Action Name="RenameMake" IsBound="true">
                <Parameter Name="car" Type="G.Car" Nullable="false"/>
                <Parameter Name="new" Type="Edm.String" Nullable="false"/>
              </Action>
              <EntityType Name="Make"><Key><PropertyRef Name="name"/></Key>
                <Property Name="name" Type="Edm.String" Nullable="false"/>
              </EntityType>
              <Action Name="AddMake"><Parameter Name="name" Type="Edm.String" Nullable="false"/>
                <Annotation Term="com.sap.vocabularies.Common.v1.SideEffects"><Record>
                  <PropertyValue Property="TargetEntities"><Collection>
                    <NavigationPropertyPath>/G.C/Makes</NavigationPropertyPath>
                    <NavigationPropertyPath>/G.C/Nowhere</NavigationPropertyPath>
                  </Collection></PropertyValue>
                </Record></Annotation>
              </Action>
              <EntityContainer Name="C">
                <EntitySet Name="Cars" EntityType="G.Car"/>
                <EntitySet Name="Makes" EntityType="G.Make"/>
                <ActionImport Name="AddMake" Action="G.AddMake"/>
              </EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        do { return try EDMXParser.parse(Array(document.utf8)) } catch { fatalError("\(error)") }
    }()

    /// A service whose cars' make is "Ford" until RenameMake runs, then "FORD".
    func makeTransport() -> FakeTransport {
        let renamed = Mutex(false)
        return FakeTransport { request, _ in
            if request.method == .post {
                if request.url.hasSuffix("/G.RenameMake") { renamed.withLock { $0 = true } }
                return TransportResponse(status: 204)
            }
            let make = renamed.withLock { $0 } ? "FORD" : "Ford"
            return json(
                #"{"@odata.context":"\#(Self.root)$metadata#Cars","@odata.count":2,"value":["#
                    + #"{"id":1,"make":"\#(make)"},{"id":2,"make":"\#(make)"}]}"#)
        }
    }

    func makeEngine(_ transport: FakeTransport) throws -> SyncEngine {
        try SyncEngine.forTesting(root: Self.root, transport: transport, model: Self.model)
    }

    @Test func an_action_on_the_service_goes_once_to_its_import_and_reads_nothing_after() async throws {
        let transport = makeTransport()
        let engine = try makeEngine(transport)
        let addMake = try #require(Self.model.unboundOperations.first { $0.name == "AddMake" })
        #expect(addMake.queuedName == "/AddMake")
        engine.invoke(
            ActionInvocation(
                key: .call(on: nil), operation: addMake.queuedName,
                parameters: [.init(name: "name", value: .string("Lada"))]))
        await engine.flushIntents()
        #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
        await engine.waitUntilIdle()
        let requests = await transport.requests
        #expect(requests.count == 1, "\(requests.map(\.url))")
        let sent = try #require(requests.first)
        #expect(sent.method == .post && sent.url == Self.root + "AddMake")
        #expect(String(decoding: sent.body ?? [], as: UTF8.self) == #"{"name":"Lada"}"#)
        #expect(sent.headers["Repeatability-Request-ID"] != nil && sent.headers["If-Match"] == nil)
    }

    /// An action on the service has no list of its own; the sets its side effects name by absolute path
    /// (`/Container/Set`) are read again where shown (a name that is no set is passed over).
    @Test func the_sets_an_action_on_the_service_names_in_its_side_effects_are_read_again() async throws {
        let added = Mutex(false)
        let transport = FakeTransport { request, _ in
            if request.method == .post {
                added.withLock { $0 = true }
                return TransportResponse(status: 204)
            }
            let names = added.withLock { $0 } ? ["Ford", "Lada"] : ["Ford"]
            return json(
                #"{"@odata.context":"\#(Self.root)$metadata#Makes","@odata.count":\#(names.count),"value":["#
                    + names.map { #"{"name":"\#($0)"}"# }.joined(separator: ",") + "]}")
        }
        let engine = try makeEngine(transport)
        let makes = ListRequest(entitySet: "Makes")
        engine.screenDidShow(.list(makes), visible: 0..<10, screen: ScreenID(1))
        await engine.flushIntents()
        await engine.waitUntilIdle()
        #expect(try engine.cache.listWindow(makes.key, range: 0..<5).rows.count == 1)
        // When AddMake runs on the service
        let addMake = try #require(Self.model.unboundOperations.first { $0.name == "AddMake" })
        #expect(addMake.sideEffects?.absoluteTargets { Self.model.entitySet(named: $0) != nil }.map(\.set) == ["Makes"])
        engine.invoke(
            ActionInvocation(
                key: .call(on: nil), operation: addMake.queuedName,
                parameters: [.init(name: "name", value: .string("Lada"))]))
        await engine.flushIntents()
        // Then the list of makes on screen is read again, and shows the new one
        #expect(try await eventually { try engine.cache.listWindow(makes.key, range: 0..<5).rows.count == 2 })
        await engine.waitUntilIdle()
        let gets = await transport.requests.filter { $0.method == .get }.map(\.url)
        #expect(gets.count == 2 && gets.allSatisfy { $0.hasPrefix(Self.root + "Makes") }, "\(gets)")
    }

    @Test func an_action_on_a_list_goes_to_the_lists_path_and_the_list_on_screen_is_read_again() async throws {
        let transport = makeTransport()
        let engine = try makeEngine(transport)
        let cars = ListRequest(entitySet: "Cars")
        engine.screenDidShow(.list(cars), visible: 0..<10, screen: ScreenID(1))
        await engine.flushIntents()
        await engine.waitUntilIdle()
        #expect(try engine.cache.listWindow(cars.key, range: 0..<2).rows.first?.entity?["make"] == .string("Ford"))
        // When the list's own RenameMake (not the one on a car) is invoked
        let type = try #require(Self.model.entityType(ofSet: "Cars"))
        let rename = try #require(Self.model.operations(boundTo: type.qualifiedName, collection: true).first)
        #expect(Self.model.operation(queuedAs: rename.queuedName, on: "Cars") == rename)
        engine.invoke(
            ActionInvocation(
                key: .call(on: "Cars"), operation: rename.queuedName,
                parameters: [.init(name: "old", value: .string("Ford")), .init(name: "new", value: .string("FORD"))]))
        await engine.flushIntents()
        // Then it goes to the list's path, once, and the list on screen shows what the service now holds
        #expect(
            try await eventually {
                try engine.cache.listWindow(cars.key, range: 0..<2).rows.first?.entity?["make"] == .string("FORD")
            })
        let posts = await transport.requests.filter { $0.method == .post }
        #expect(posts.map(\.url) == [Self.root + "Cars/G.RenameMake"])
        #expect(String(decoding: posts.first?.body ?? [], as: UTF8.self) == #"{"old":"Ford","new":"FORD"}"#)
        #expect(try engine.cache.outboxEntries().isEmpty)
    }

    @Test func a_call_key_names_its_list_or_the_service_and_round_trips() throws {
        let onList = EntityKey.call(on: "Cars")
        let onService = EntityKey.call(on: nil)
        #expect(onList.isCall && onList.callSet == "Cars")
        #expect(onService.isCall && onService.callSet == nil)
        #expect(EntityKey(canonical: onList.canonical) == onList)
        #expect(EntityKey(canonical: onService.canonical)?.isCall == true)
        #expect(!EntityKey(entitySet: "Cars", value: .int(1)).isCall && !EntityKey.temporary(in: "Cars").isCall)
        #expect(onList != EntityKey.call(on: "Cars"))
    }

    /// Refused, a call waits for the user; `r` sends it again as it was (there is no entity to restore).
    @Test func a_refused_call_is_sent_again_on_r() async throws {
        let refusals = Mutex(1)
        let transport = FakeTransport { request, _ in
            let refuse = refusals.withLock { count -> Bool in
                defer { count -= 1 }
                return count > 0
            }
            return refuse
                ? json(#"{"error":{"code":"400","message":"Makes are locked just now"}}"#, status: 400)
                : TransportResponse(status: 204)
        }
        let engine = try makeEngine(transport)
        engine.invoke(
            ActionInvocation(
                key: .call(on: nil), operation: "/AddMake", parameters: [.init(name: "name", value: .string("Lada"))]))
        await engine.flushIntents()
        #expect(try await eventually { try engine.cache.outboxEntries().first?.state == .failed })
        let refused = try #require(try engine.cache.outboxEntries().first)
        #expect(refused.lastError?.contains("Makes are locked") == true, "\(refused.lastError ?? "")")
        engine.resolve(outboxEntry: refused.id, .retry)
        #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
        let posts = await transport.requests.filter { $0.method == .post }
        #expect(posts.count == 2 && Set(posts.map { $0.headers["Repeatability-Request-ID"] }).count == 1)
    }

    /// Only the set's own lists are marked (`Cars`, `Cars?…`, `Cars/NS.Estate…`), at the time given; another set whose name starts
    /// the same, and a function's list, are not; a page asked for before the marking leaves the list not fresh.
    @Test func the_sets_own_lists_are_marked_and_an_earlier_page_leaves_them_so() throws {
        let cache = try CacheDatabase()
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let keys = [
            "Cars", "Cars?$filter=make eq 'Ford'", "CarsX", "CarsByMake?make='Ford'", "Cars/NS.Estate",
            "Cars/NS.Estate?$orderby=make", "Cars(1)/Owners", "Cars/NS.Estate/Owners", "Cars/$count", "Cars/1/Owners",
        ].map(ListKey.init)
        try cache.writeBlocking { session in
            for key in keys {
                try session.writeListPage(
                    key, offset: 0, entityKeys: ["Cars(1)"], totalCount: 1, nextLink: nil, isLastPage: true, at: at)
            }
        }
        let marked = try cache.writeBlocking { try $0.markListsStale(ofSet: "Cars", at: at.addingTimeInterval(10)) }
        // (and its lists narrowed to a derived type; not a relation of one of them)
        #expect(
            Set(marked.map(\.canonical)) == [
                "Cars", "Cars?$filter=make eq 'Ford'", "Cars/NS.Estate", "Cars/NS.Estate?$orderby=make",
            ])
        for relation in keys[6...] { #expect(try cache.listState(relation)?.fetchedAt == at, "\(relation)") }
        #expect(try cache.listState(keys[0])?.fetchedAt == Date(timeIntervalSince1970: 0))
        #expect(try cache.listState(keys[2])?.fetchedAt == at)
        #expect(try cache.listState(keys[3])?.fetchedAt == at)
        // A page asked for before the marking, answered after: still not fresh; one asked for after: fresh
        try cache.writeBlocking { session in
            try session.writeListPage(
                keys[0], offset: 0, entityKeys: ["Cars(1)"], totalCount: 1, nextLink: nil, isLastPage: true,
                at: at.addingTimeInterval(11), requestedAt: at.addingTimeInterval(9))
        }
        #expect(try cache.listState(keys[0])?.fetchedAt == Date(timeIntervalSince1970: 0))
        try cache.writeBlocking { session in
            try session.writeListPage(
                keys[0], offset: 0, entityKeys: ["Cars(1)"], totalCount: 1, nextLink: nil, isLastPage: true,
                at: at.addingTimeInterval(13), requestedAt: at.addingTimeInterval(12))
        }
        #expect(try cache.listState(keys[0])?.fetchedAt == at.addingTimeInterval(13))
    }

    /// A page read already on its way when the action runs brings the list as it was before: the list stays not
    /// fresh and is asked again at once (not held as answered), so the screen ends with what the service holds now.
    @Test func a_page_on_its_way_when_the_action_runs_is_followed_by_a_fresh_read() async throws {
        // The service: its first two reads (the list shown, then the one held on its way) answer the old make
        let reads = Mutex(0)
        let transport = FakeTransport { request, _ in
            if request.method == .post { return TransportResponse(status: 204) }
            let read = reads.withLock { count -> Int in
                count += 1
                return count
            }
            let make = read <= 2 ? "Ford" : "FORD"
            return json(
                #"{"@odata.context":"\#(Self.root)$metadata#Cars","@odata.count":2,"value":["#
                    + #"{"id":1,"make":"\#(make)"},{"id":2,"make":"\#(make)"}]}"#)
        }
        // (the system's clock: the held read goes out before the action's effects are marked)
        let engine = SyncEngine(
            configuration: SyncEngine.Configuration(serviceRoot: Self.root), cache: try CacheDatabase(),
            transport: transport, model: Self.model)
        let cars = ListRequest(entitySet: "Cars")
        engine.screenDidShow(.list(cars), visible: 0..<10, screen: ScreenID(1))
        await engine.flushIntents()
        await engine.waitUntilIdle()
        // Given a read of the list on its way, held
        await transport.hold { $0.method == .get }
        engine.refresh(screen: ScreenID(1))
        await engine.flushIntents()
        #expect(try await eventually { await transport.waitingCount == 1 })
        // When the action on all cars runs meanwhile
        let type = try #require(Self.model.entityType(ofSet: "Cars"))
        let rename = try #require(Self.model.operations(boundTo: type.qualifiedName, collection: true).first)
        engine.invoke(
            ActionInvocation(
                key: .call(on: "Cars"), operation: rename.queuedName,
                parameters: [.init(name: "old", value: .string("Ford")), .init(name: "new", value: .string("FORD"))]))
        await engine.flushIntents()
        #expect(try await eventually { try engine.cache.outboxEntries().isEmpty })
        // And the held read answers after it, with the make as it was when it was asked
        await transport.release()
        // Then the list is read again and ends with the new make, fresh
        #expect(
            try await eventually(seconds: 10) {
                try engine.cache.listWindow(cars.key, range: 0..<2).rows.first?.entity?["make"] == .string("FORD")
                    && (try engine.cache.listState(cars.key)?.fetchedAt?.timeIntervalSince1970 ?? 0) > 0
            })
        #expect(reads.withLock { $0 } == 3)
    }
}
