import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import Testing

@testable import Sync

/// Issue 11, item 8: what start-up says when a URL's `$metadata` is not one, and a URL that names an entity set.
@Suite struct MetadataLoaderTests {
    static func load(
        _ reply: @escaping @Sendable (ScriptedHTTPServer.Exchange) -> ScriptedHTTPServer.Reply, root: String = "/svc/"
    )
        async throws -> (Result<MetadataLoader.Loaded, MetadataLoader.Failure>, ScriptedHTTPServer)
    {
        let server = try ScriptedHTTPServer(script: reply)
        let transport = try HTTPClientTransport(serviceRoot: server.url(root), environment: [:], timeout: 5)
        do {
            return (.success(try await MetadataLoader.load(root: server.url(root), transport: transport)), server)
        } catch let failure as MetadataLoader.Failure {
            return (.failure(failure), server)
        }
    }

    static func sentence(_ result: Result<MetadataLoader.Loaded, MetadataLoader.Failure>) -> String {
        if case .failure(let failure) = result { return failure.sentence }
        return "loaded"
    }

    @Test func an_HTML_page_instead_of_metadata_is_named_and_the_root_questioned() async throws {
        let page = Array("<!DOCTYPE html><html><body><h1>Welcome</h1></body></html>".utf8)
        let (result, server) = try await Self.load { _ in
            .bytes(ScriptedHTTPServer.response(headers: ["Content-Type: text/html"], body: page))
        }
        let sentence = Self.sentence(result)
        #expect(
            sentence.contains("the answer is an HTML page, not the EDMX XML of a $metadata document"), "\(sentence)")
        #expect(sentence.contains("Is \(server.url("/svc/")) the service root?"), "\(sentence)")
        #expect(!sentence.contains("?."), "\(sentence)")
    }

    @Test func JSON_instead_of_metadata_is_named_not_reported_as_a_missing_root_element() async throws {
        let (result, _) = try await Self.load { _ in
            .bytes(ScriptedHTTPServer.response(body: Array(#"{"d":{"EntitySets":["Person"]}}"#.utf8)))
        }
        let sentence = Self.sentence(result)
        #expect(sentence.contains("the answer is JSON, not the EDMX XML"), "\(sentence)")
        #expect(!sentence.contains("root element"), "\(sentence)")
        #expect(sentence.contains("the service root?"), "\(sentence)")
    }

    @Test func a_404_suggests_the_URL_may_not_be_a_service_root() async throws {
        let (result, _) = try await Self.load { _ in
            .bytes(
                ScriptedHTTPServer.response(
                    status: "404 Not Found", headers: ["Content-Type: text/plain"], body: Array("no".utf8)))
        }
        let sentence = Self.sentence(result)
        #expect(sentence.contains("HTTP 404"), "\(sentence)")
        #expect(sentence.contains("the service root?"), "\(sentence)")
    }

    @Test func a_URL_naming_an_entity_set_is_opened_under_the_service_root() async throws {
        // Given a service at /svc/ whose Person set the URL names
        let edmx = Array(CarDealerModel.edmx.utf8)
        let (result, server) = try await Self.load(
            { exchange in
                exchange.target == "/svc/$metadata"
                    ? .bytes(ScriptedHTTPServer.response(headers: ["Content-Type: application/xml"], body: edmx))
                    : .bytes(
                        ScriptedHTTPServer.response(
                            status: "404 Not Found", body: Array(#"{"error":{"code":"x","message":"no"}}"#.utf8)))
            }, root: "/svc/Person/")
        // Then the root is the service's and the set is the one named
        guard case .success(let loaded) = result else {
            Issue.record("\(Self.sentence(result))")
            return
        }
        #expect(loaded.root == server.url("/svc/"))
        #expect(loaded.entitySet == "Person")
        // (the set's URL is not read as a service document: that is asked of the root, once $metadata is had)
        #expect(server.exchanges.map(\.target) == ["/svc/Person/$metadata", "/svc/$metadata", "/svc/"])
    }

    @Test func a_service_that_changed_dialect_empties_the_warm_cache_for_the_next_start() async throws {
        // Given a cache of the v2 service at /svc/, holding its $metadata and an entity
        let path = NSTemporaryDirectory() + "cardealer-dialect-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let seeded = try EntityCache.CacheDatabase(path: path)
        try await seeded.write { session in
            try session.storeMetadataDocument(Array(CarDealerModel.edmx.utf8), at: Date())
            try session.upsertEntity(
                key: EntityKey(entitySet: "Person", value: .int(1)), entitySet: "Person", type: nil,
                properties: [ODataProperty(name: "personID", value: .int(1))], etag: nil, at: Date(), partial: false)
        }
        // When the service at that root now publishes EDMX 4.0
        let version4 = Array(
            """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
            <Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">
            <EntityType Name="Person"><Key><PropertyRef Name="personID"/></Key>
            <Property Name="personID" Type="Edm.Int64" Nullable="false"/></EntityType>
            <EntityContainer Name="C"><EntitySet Name="Person" EntityType="S.Person"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """.utf8)
        let server = try ScriptedHTTPServer { _ in
            .bytes(ScriptedHTTPServer.response(headers: ["Content-Type: application/xml"], body: version4))
        }
        let transport = try HTTPClientTransport(serviceRoot: server.url("/svc/"), environment: [:], timeout: 5)
        let opened = try await MetadataLoader.open(root: server.url("/svc/"), transport: transport) { _ in path }
        // Then this start still uses the cached v2 model (no wait), and the cache is emptied for the next one
        #expect(opened.fromCache && opened.model.dialect == .v2)
        var next: ServiceModel?
        for _ in 0..<200 where next?.dialect != .v4 {
            try await Task.sleep(for: .milliseconds(10))
            next = try? EDMXParser.parse(try opened.cache.metadataDocument() ?? [])
        }
        #expect(next?.dialect == .v4)
        #expect(try opened.cache.entity(EntityKey(entitySet: "Person", value: .int(1))) == nil)
    }

    @Test func a_URL_naming_an_entity_by_its_key_as_a_segment_is_opened_under_the_root_two_levels_up() async throws {
        // Given a service at /svc/ and a URL naming person 1 as a service that takes keys as segments writes it
        let edmx = Array(CarDealerModel.edmx.utf8)
        let (result, server) = try await Self.load(
            { exchange in
                exchange.target == "/svc/$metadata"
                    ? .bytes(ScriptedHTTPServer.response(headers: ["Content-Type: application/xml"], body: edmx))
                    : .bytes(ScriptedHTTPServer.response(status: "404 Not Found", body: []))
            }, root: "/svc/Person/1/PersonCar")
        guard case .success(let loaded) = result else {
            Issue.record("\(Self.sentence(result))")
            return
        }
        // Then the root is found three levels up, one question each, and the path below it is kept to be opened
        #expect(loaded.root == server.url("/svc/"))
        #expect(loaded.entitySet == "Person" && loaded.path == "Person/1/PersonCar")
        #expect(
            server.exchanges.map(\.target).prefix(4) == [
                "/svc/Person/1/PersonCar/$metadata", "/svc/Person/1/$metadata", "/svc/Person/$metadata",
                "/svc/$metadata",
            ])
        // (no deeper than three segments: a longer path is not looked above)
        #expect(MetadataLoader.parentRoots(of: "http://h/a/b/c/d/e").map(\.root).last == "http://h/a/b/")
        #expect(MetadataLoader.parentRoots(of: "http://h/svc/Car(3)?$top=1").map(\.path) == ["Car(3)", "svc/Car(3)"])
        #expect(MetadataLoader.parentRoots(of: "http://h/svc/a%20b/Car").map(\.path) == ["Car"])
        // (a service may sit at the host's root)
        #expect(MetadataLoader.parentRoots(of: "http://h/Cars/").map { $0.root + " " + $0.path } == ["http://h/ Cars"])
    }

    /// pyslet answers `$metadata` below its root too (`Cars/$metadata`): the URL's last segment naming one of the
    /// sets described, the root above it is asked, and taken when it describes that set as well.
    @Test func a_set_below_a_server_that_answers_metadata_anywhere_is_opened_under_the_root_above() async throws {
        let edmx = Array(CarDealerModel.edmx.utf8)
        let (result, server) = try await Self.load(
            { exchange in
                exchange.target.hasSuffix("/$metadata")
                    ? .bytes(ScriptedHTTPServer.response(headers: ["Content-Type: application/xml"], body: edmx))
                    : .bytes(ScriptedHTTPServer.response(status: "404 Not Found", body: []))
            }, root: "/svc/Person/")
        guard case .success(let loaded) = result else {
            Issue.record("\(Self.sentence(result))")
            return
        }
        #expect(loaded.root == server.url("/svc/") && loaded.entitySet == "Person" && loaded.path == "Person")
        // (the set's URL never read as a service document)
        #expect(server.exchanges.map(\.target) == ["/svc/Person/$metadata", "/svc/$metadata", "/svc/"])
    }

    /// The same URL where the root above answers no `$metadata`: it is the service root after all, and its service
    /// document is asked once that is settled.
    @Test func a_root_whose_last_segment_names_a_set_stays_the_root_when_the_one_above_is_no_service() async throws {
        let edmx = Array(CarDealerModel.edmx.utf8)
        let (result, server) = try await Self.load(
            { exchange in
                exchange.target == "/svc/Person/$metadata"
                    ? .bytes(ScriptedHTTPServer.response(headers: ["Content-Type: application/xml"], body: edmx))
                    : .bytes(ScriptedHTTPServer.response(status: "404 Not Found", body: []))
            }, root: "/svc/Person/")
        guard case .success(let loaded) = result else {
            Issue.record("\(Self.sentence(result))")
            return
        }
        #expect(loaded.root == server.url("/svc/Person/") && loaded.entitySet == nil)
        #expect(server.exchanges.map(\.target) == ["/svc/Person/$metadata", "/svc/$metadata", "/svc/Person/"])
    }

    @Test func a_parent_without_that_set_is_not_taken_for_the_root() async throws {
        let edmx = Array(CarDealerModel.edmx.utf8)
        let (result, _) = try await Self.load(
            { exchange in
                exchange.target == "/svc/$metadata"
                    ? .bytes(ScriptedHTTPServer.response(headers: ["Content-Type: application/xml"], body: edmx))
                    : .bytes(ScriptedHTTPServer.response(status: "404 Not Found", body: []))
            }, root: "/svc/Nothing/")
        #expect(Self.sentence(result).contains("HTTP 404"))
    }
}
