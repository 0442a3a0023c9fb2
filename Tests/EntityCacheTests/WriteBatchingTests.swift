import CarDealerTestSupport
import Foundation
import GRDB
import ODataCore
import Synchronization
import Testing

@testable import EntityCache

/// The write path's group commit and background WAL checkpoints, on real SQLite files.
@Suite struct WriteBatchingTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)

    struct Refused: Error, Equatable {}

    func temporaryPath() -> String {
        NSTemporaryDirectory() + "write-batching-\(UUID().uuidString)/cache.sqlite"
    }

    @Test func concurrent_writes_all_land_and_a_failing_one_is_rolled_back_alone() async throws {
        // Given a cache file and 40 concurrent writes, of which write 7 writes a row and then throws
        let path = temporaryPath()
        defer { _ = try? CacheDatabase.removeFiles(at: path) }
        let cache = try CacheDatabase(path: path)
        let outcomes = await withTaskGroup(of: (Int, Result<Int, Error>).self) { group in
            for index in 0..<40 {
                group.addTask { [date] in
                    do {
                        let value = try await cache.write { session -> Int in
                            try session.upsertEntity(
                                key: "Car(\(index))", entitySet: "Car", type: nil,
                                properties: [.init(name: "n", value: .int(Int64(index)))], etag: nil, at: date,
                                partial: false)
                            if index == 7 { throw Refused() }
                            return index * 10
                        }
                        return (index, .success(value))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var outcomes: [Int: Result<Int, Error>] = [:]
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
        // Then every other write returned its own value and its row is there; write 7 got its own error
        // and left nothing behind
        for index in 0..<40 where index != 7 {
            #expect((try? outcomes[index]?.get()) == index * 10)
            #expect(try cache.entity("Car(\(index))")?["n"] == .int(Int64(index)))
        }
        guard case .failure(let error)? = outcomes[7] else {
            Issue.record("write 7 should have failed")
            return
        }
        #expect(error is Refused)
        #expect(try cache.entity("Car(7)") == nil)
    }

    @Test func a_queued_write_is_made_in_order_and_tells_its_caller_once_it_is_in() async throws {
        // Given a cache file, and 20 writes queued without waiting, each setting the same row, write 5 throwing
        let path = temporaryPath()
        defer { _ = try? CacheDatabase.removeFiles(at: path) }
        let cache = try CacheDatabase(path: path)
        let told = Mutex<[Int: Bool]>([:])
        let seen = Mutex<[Int: Int64]>([:])
        for index in 0..<20 {
            cache.enqueueWrite { [date] session in
                try session.upsertEntity(
                    key: "Car(1)", entitySet: "Car", type: nil,
                    properties: [.init(name: "n", value: .int(Int64(index)))],
                    etag: nil, at: date, partial: false)
                if index == 5 { throw Refused() }
            } then: { error in
                told.withLock { $0[index] = error is Refused }
                // (what the caller is told comes after its write is committed: a reader sees it or a later one)
                if case .int(let n)? = try? cache.entity("Car(1)")?["n"] { seen.withLock { $0[index] = n } }
            }
        }
        // When a write asked after them has been made
        try await cache.write { [date] session in
            try session.upsertEntity(
                key: "Car(2)", entitySet: "Car", type: nil, properties: [], etag: nil, at: date, partial: false)
        }
        // Then the queued ones were made before it, in the order asked for, and each caller was told (write 5 of
        // its own error, having left nothing)
        #expect(try cache.entity("Car(1)")?["n"] == .int(19))
        #expect(told.withLock { $0 }.count == 20)
        #expect(told.withLock { $0 }.filter(\.value).map(\.key) == [5])
        for (index, n) in seen.withLock({ $0 }) where index != 5 { #expect(n >= Int64(index)) }
    }

    @Test func a_lone_write_that_throws_leaves_nothing_behind() async throws {
        // Given a cache file and one write (nothing queued beside it) that writes a row and then throws
        let path = temporaryPath()
        defer { _ = try? CacheDatabase.removeFiles(at: path) }
        let cache = try CacheDatabase(path: path)
        await #expect(throws: Refused.self) {
            try await cache.write { [date] session in
                try session.upsertEntity(
                    key: "Car(1)", entitySet: "Car", type: nil, properties: [], etag: nil, at: date, partial: false)
                throw Refused()
            }
        }
        // Then the row is not there, and the next write works
        #expect(try cache.entity("Car(1)") == nil)
        try await cache.write { [date] session in
            try session.upsertEntity(
                key: "Car(2)", entitySet: "Car", type: nil, properties: [], etag: nil, at: date, partial: false)
        }
        #expect(try cache.entity("Car(2)") != nil)
    }

    @Test func the_log_is_copied_into_the_database_file_in_the_background() async throws {
        // Given a cache file whose writer never checkpoints itself
        let path = temporaryPath()
        defer { _ = try? CacheDatabase.removeFiles(at: path) }
        let cache = try CacheDatabase(path: path)
        let before = try fileSize(path)
        // When more than the threshold's worth of pages is committed, in many transactions
        let padding = String(repeating: "x", count: 2_000)
        for batch in 0..<40 {
            try await cache.write { session in
                for row in 0..<50 {
                    try session.upsertEntity(
                        key: "Car(\(batch * 50 + row))", entitySet: "Car", type: nil,
                        properties: [.init(name: "note", value: .string(padding))], etag: nil, at: date, partial: false)
                }
            }
        }
        // Then, while the cache stays open, the database file itself grows: the checkpointer copied the log
        var after = try fileSize(path)
        for _ in 0..<100 where after < before + 2_000_000 {
            try await Task.sleep(for: .milliseconds(50))
            after = try fileSize(path)
        }
        #expect(after >= before + 2_000_000, "database file \(before) → \(after) bytes")
        #expect(try cache.integrity().isClean)
    }

    func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
