import CarDealerTestSupport
import DemoServer
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Testing

@testable import Sync

/// `r` on a list the service tracks changes to asks its delta link what changed (issue 34), against the demo
/// service in both dialects: changes land where the rows are, deleted rows leave with the count, the new link is
/// kept; an entity new to the list has its pages read again, and an expired link is forgotten.
@Suite(.serialized) struct DeltaRefreshTests {
    let cars = ListRequest(entitySet: "Car")

    func withServer(
        version4: Bool, _ body: (String, SyncEngine, BatchFlushTests.CountingTransport) async throws -> Void
    ) async throws {
        let directory = NSTemporaryDirectory() + "delta-it-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 20, dataPath: directory + "/demo.sqlite"))
        let root = version4 ? server.version4URL : server.baseURL
        // (the transport as the browser makes it: for this service, whose origin it keeps to)
        let transport = BatchFlushTests.CountingTransport(
            try HTTPClientTransport(serviceRoot: root, environment: [:], timeout: 10))
        let opened = try await MetadataLoader.open(root: root, transport: transport.inner) { _ in
            directory + "/cache.sqlite"
        }
        #expect(opened.model.entitySet(named: "Car")?.tracksChanges == true)
        let engine = try SyncEngine.forTesting(
            root: root, transport: transport, model: opened.model, cache: opened.cache, clock: SystemClock())
        do {
            try await body(root, engine, transport)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A write on the service itself, past the client.
    func onService(_ method: RequestMethod, _ url: String, _ body: String? = nil, version4: Bool) async throws -> Int {
        var request = TransportRequest(method: method, url: url, dialect: version4 ? .v4 : .v2)
        if let body {
            request.headers["Content-Type"] = "application/json"
            request.body = Array(body.utf8)
        }
        return try await HTTPClientTransport(timeout: 10).send(request).status
    }

    @Test(arguments: [false, true])
    func a_refresh_by_delta_brings_changes_and_deletions_without_reading_the_pages(version4: Bool) async throws {
        try await withServer(version4: version4) { root, engine, transport in
            // Given the cars listed, with the delta link their first page came with
            engine.screenDidShow(.list(cars), visible: 0..<20, screen: ScreenID(1))
            await engine.waitUntilIdle()
            #expect(try engine.cache.deltaLink(for: cars.key)?.contains("deltatoken") == true)
            let before = try #require(try engine.cache.listState(cars.key)?.totalCount)
            #expect(
                try engine.cache.listWindow(cars.key, range: 0..<before).rows.contains { $0.entity?.key == "Car(3)" })
            // And, on the service, car 2 changed and car 3 deleted
            #expect(try await onService(.patch, root + "Car(2)", #"{"model":"By delta"}"#, version4: version4) == 204)
            #expect(try await onService(.delete, root + "Car(3)", version4: version4) == 204)
            let sent = transport.sent.withLock { $0.count }
            // When the list is refreshed
            engine.refresh(screen: ScreenID(1))
            // Then car 2 shows the change, car 3 is gone and the count with it
            #expect(
                try await eventually {
                    try engine.cache.entity("Car(2)")?["model"] == .string("By delta")
                        && engine.cache.listState(cars.key)?.totalCount == before - 1
                })
            let rows = try engine.cache.listWindow(cars.key, range: 0..<before).rows.compactMap { $0.entity?.key }
            #expect(!rows.contains("Car(3)") && rows.contains("Car(2)"))
            #expect(try engine.cache.entity("Car(3)") == nil)
            // And one request went: the delta link, not the list's pages
            await engine.waitUntilIdle()
            let after = transport.sent.withLock { Array($0.dropFirst(sent)) }
            #expect(after.count == 1 && after.first?.url.contains("deltatoken") == true, "\(after.map(\.url))")
            #expect(after.first?.headers["Prefer"] == "odata.track-changes")
            #expect(try engine.cache.requestLog().last?.method.hasPrefix("GET (delta") == true)
        }
    }

    @Test func a_car_new_to_the_list_has_its_pages_read_again() async throws {
        try await withServer(version4: true) { root, engine, transport in
            engine.screenDidShow(.list(cars), visible: 0..<20, screen: ScreenID(1))
            await engine.waitUntilIdle()
            let before = try #require(try engine.cache.listState(cars.key)?.totalCount)
            // Given a car made on the service
            let made = try await onService(
                .post, root + "Car", #"{"make":"Delta","model":"New","manufactureDate":"2020-01-01T00:00:00Z"}"#,
                version4: true)
            #expect(made == 201)
            let sent = transport.sent.withLock { $0.count }
            // When the list is refreshed
            engine.refresh(screen: ScreenID(1))
            // Then the delta said so, and the pages read again place it: the list is one longer
            #expect(try await eventually { try engine.cache.listState(cars.key)?.totalCount == before + 1 })
            await engine.waitUntilIdle()
            let after = transport.sent.withLock { Array($0.dropFirst(sent)) }
            #expect(after.first?.url.contains("deltatoken") == true && after.count >= 2, "\(after.map(\.url))")
        }
    }

    @Test func an_expired_delta_link_is_forgotten_and_the_pages_are_read_again() async throws {
        try await withServer(version4: false) { _, engine, transport in
            engine.screenDidShow(.list(cars), visible: 0..<20, screen: ScreenID(1))
            await engine.waitUntilIdle()
            // Given a delta link the service no longer knows
            let link = try #require(try engine.cache.deltaLink(for: cars.key))
            let expired = link.replacingOccurrences(of: "deltatoken='D", with: "deltatoken='X")
            try await engine.cache.write { try $0.setDeltaLink(expired, for: cars.key) }
            let sent = transport.sent.withLock { $0.count }
            // When the list is refreshed
            engine.refresh(screen: ScreenID(1))
            await engine.flushIntents()
            // Then the request log says so, and the pages are read again (which bring a new link)
            #expect(
                try await eventually {
                    try engine.cache.requestLog().contains { $0.error?.contains("no longer answers") == true }
                })
            await engine.waitUntilIdle()
            let after = transport.sent.withLock { Array($0.dropFirst(sent)) }
            #expect(after.count >= 2 && after.dropFirst().contains { !$0.url.contains("deltatoken") })
            #expect(try await eventually { try engine.cache.deltaLink(for: cars.key)?.contains("'D") == true })
        }
    }
}

extension DeltaRefreshTests {
    @Test func a_delta_link_to_another_host_is_refused_and_forgotten() async throws {
        try await withServer(version4: true) { _, engine, transport in
            engine.screenDidShow(.list(cars), visible: 0..<20, screen: ScreenID(1))
            await engine.waitUntilIdle()
            // Given a delta link that leads elsewhere
            try await engine.cache.write {
                try $0.setDeltaLink("http://elsewhere.example/Car?$deltatoken=D1", for: cars.key)
            }
            let sent = transport.sent.withLock { $0.count }
            // When the list is refreshed
            engine.refresh(screen: ScreenID(1))
            await engine.flushIntents()
            await engine.waitUntilIdle()
            // Then nothing reached the other host (the transport refused it), the link is forgotten, and the pages
            // are read again
            #expect(
                try engine.cache.requestLog().contains {
                    $0.url.contains("elsewhere") && $0.error?.contains("not followed") == true
                })
            #expect(try engine.cache.deltaLink(for: cars.key)?.contains("elsewhere") != true)
            let after = transport.sent.withLock { Array($0.dropFirst(sent)) }
            #expect(after.contains { !$0.url.contains("elsewhere") && $0.url.contains("Car") })
        }
    }
}
