import EntityCache
import Testing

@testable import Sync

/// What an engine knows of its service is one value (issue 34): read from the facts earlier runs kept, and the
/// engine's own view of it.
@Suite struct LearnedFactsTests {
    @Test func the_kept_facts_are_the_starting_point_and_the_process_ones_start_unknown() throws {
        let learned = LearnedFacts(kept: [.refusesBatch, .honoursRepeatability, .refusesSelect], batchSize: 0)
        #expect(learned.refusesBatch && learned.honoursRepeatability && learned.refusesSelect)
        #expect(!learned.tunnelsMerge && !learned.refusesNestedExpand)
        #expect(!learned.refusesReferences && !learned.takesReferences)
        #expect(learned.batchLimit == 1)
        #expect(LearnedFacts(kept: ServiceFact.allCases, batchSize: 50).batchLimit == 50)
    }

    @Test func an_engine_starts_from_what_its_cache_kept() async throws {
        let cache = try CacheDatabase()
        try await cache.write { try $0.learn(.refusesMergeVerb) }
        let engine = SyncEngine(
            configuration: .init(serviceRoot: "http://127.0.0.1:1/s/"), cache: cache,
            transport: FakeTransport { _, _ in .init(status: 204) })
        let learned = await engine.learned
        #expect(learned.tunnelsMerge && !learned.refusesBatch)
    }
}
