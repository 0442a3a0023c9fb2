import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import Testing

@testable import Sync

/// The one `$metadata` load path (``MetadataLoader/open(root:transport:cachePath:)``): network on a cold start,
/// the cached copy on a warm or offline one, else a sentence.
@Suite struct MetadataTests {
    static let root = SyncEngineTests.root

    static func temporaryFile() throws -> String {
        try BuiltProducts.temporaryDirectory("metadata") + "/cache.sqlite"
    }

    static let refused = FakeTransport { request, _ in
        throw ODataError(kind: .transport, message: "the connection was refused", url: request.url)
    }

    @Test func metadata_fetched_once_is_used_again_when_the_service_is_unreachable() async throws {
        // Given a cache file that loaded $metadata from the service once
        let path = try Self.temporaryFile()
        let online = FakeTransport { request, _ in
            #expect(request.acceptsXML)
            // (and the service document, for the annotation documents it may name)
            #expect([Self.root + "$metadata", Self.root].contains(request.url))
            return TransportResponse(status: 200, body: Array(CarDealerModel.edmx.utf8))
        }
        let first = try await MetadataLoader.open(root: Self.root, transport: online) { _ in path }
        #expect(!first.fromCache)
        #expect(try first.cache.metadataDocument() == Array(CarDealerModel.edmx.utf8))
        // When a later session starts with the service down
        let second = try await MetadataLoader.open(root: Self.root, transport: Self.refused) { _ in path }
        // Then the stored model is used
        #expect(second.fromCache)
        #expect(second.model.entitySet(named: "PersonCar") != nil)
        #expect(second.root == Self.root)
    }

    @Test func a_warm_start_stores_the_services_current_metadata_for_the_next_start() async throws {
        // Given a cache holding an older $metadata
        let path = try Self.temporaryFile()
        let old = FakeTransport { _, _ in TransportResponse(status: 200, body: Array(CarDealerModel.edmx.utf8)) }
        _ = try await MetadataLoader.open(root: Self.root, transport: old) { _ in path }
        // When the next start finds the service with a changed document
        let changed = CarDealerModel.edmx.replacingOccurrences(of: "PersonCarMaintenance", with: "ServiceRecord")
        let current = FakeTransport { _, _ in TransportResponse(status: 200, body: Array(changed.utf8)) }
        let warm = try await MetadataLoader.open(root: Self.root, transport: current) { _ in path }
        // Then it starts on the cached copy at once, and the current one is stored in the background
        #expect(warm.fromCache)
        #expect(warm.model.entitySet(named: "PersonCarMaintenance") != nil)
        #expect(try await eventually { try warm.cache.metadataDocument() == Array(changed.utf8) })
    }

    @Test func with_no_cached_copy_an_unreachable_service_is_said_in_a_sentence() async throws {
        // Given no cache, when the service cannot be reached
        await #expect {
            _ = try await MetadataLoader.open(root: Self.root, transport: Self.refused) { _ in nil }
        } throws: { error in
            // Then the failure says what was tried and why it failed
            let sentence = (error as? MetadataLoader.Failure)?.sentence ?? ""
            return sentence.contains("Could not load the service's $metadata") && sentence.contains("refused")
        }
    }
}
