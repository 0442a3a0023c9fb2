import CarDealerTestSupport
import EntityCache
import Testing

@testable import Sync

/// What the fetcher and the outbox know of their service is one value each (issue 34): read from the facts earlier
/// runs kept, and each actor's own view of it.
@Suite struct LearnedFactsTests {
    @Test func the_kept_facts_are_the_starting_point_and_the_process_ones_start_unknown() throws {
        let kept: [ServiceFact] = [.refusesBatch, .honoursRepeatability, .refusesSelect]
        let writes = WriteFacts(kept: kept, batchSize: 0)
        #expect(writes.refusesBatch && writes.honoursRepeatability)
        #expect(!writes.tunnelsMerge && !writes.refusesReferences && !writes.takesReferences)
        #expect(writes.batchLimit == 1)
        #expect(WriteFacts(kept: ServiceFact.allCases, batchSize: 50).batchLimit == 50)
        let reads = ReadFacts(kept: kept)
        #expect(reads.refusesSelect && !reads.refusesNestedExpand)
        #expect(ReadFacts(kept: ServiceFact.allCases) == ReadFacts(kept: [.refusesSelect, .refusesNestedExpand]))
    }

    @Test func an_engine_and_its_outbox_start_from_what_their_cache_kept() async throws {
        let cache = try CacheDatabase()
        try await cache.write {
            try $0.learn(.refusesMergeVerb)
            try $0.learn(.refusesNestedExpand)
        }
        let engine = SyncEngine(
            configuration: .init(serviceRoot: "http://127.0.0.1:1/s/"), cache: cache,
            transport: FakeTransport { _, _ in .init(status: 204) })
        let reads = await engine.learned
        #expect(reads.refusesNestedExpand && !reads.refusesSelect)
        let writes = await engine.outbox.learned
        #expect(writes.tunnelsMerge && !writes.refusesBatch)
    }
}
