import EntityCache
import Foundation
import ODataCore
import Testing

@testable import Sync

@Suite struct MetadataTests {
    @Test func metadata_fetched_once_is_used_again_when_the_service_is_unreachable() async throws {
        // Given a cache that loaded $metadata from the service once
        let cache = try CacheDatabase()
        let online = FakeTransport { request, _ in
            #expect(request.acceptsXML)
            return TransportResponse(status: 200, body: Array(CarDealerModel.edmx.utf8))
        }
        let configuration = SyncEngine.Configuration(serviceRoot: SyncEngineTests.root)
        _ = try await SyncEngine(configuration: configuration, cache: cache, transport: online).loadMetadata()
        // When a later session starts with the service down
        let offline = FakeTransport { request, _ in
            throw ODataError(kind: .transport, message: "the connection was refused", url: request.url)
        }
        let model = try await SyncEngine(configuration: configuration, cache: cache, transport: offline).loadMetadata()
        // Then the stored model is used, and the failed attempt is in the request log
        #expect(model.entitySet(named: "PersonCar") != nil)
        #expect(try cache.requestLog().map(\.outcome) == [.fetched, .failed])
    }
}
