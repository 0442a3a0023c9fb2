import DemoServer
import Foundation
import Testing

@Suite struct MetadataFixtureTests {
    @Test func the_benchmarks_metadata_fixture_is_what_the_service_serves() throws {
        // Given the $metadata copy cache-bench reads (it must not link the server: its memory figure is the cache's)
        let fixture = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Benchmarks/Fixtures/cardealer-metadata.xml")
        let copy = try String(contentsOf: fixture, encoding: .utf8)
        // Then it is exactly the built-in service's document (regenerate it from `GET $metadata` if not)
        #expect(copy == ServiceSchema.carDealer.edmx)
    }
}
