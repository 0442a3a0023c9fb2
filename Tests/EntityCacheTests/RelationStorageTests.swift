import Foundation
import GRDB
import ODataCore
import Testing

@testable import EntityCache

/// One row per relation holding its child keys as JSON (schema v2), and the migration from v1's
/// row per position.
@Suite struct RelationStorageTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let person = EntityKey(entitySet: "Person", value: .int(1))

    @Test func hostile_child_keys_round_trip_and_read_the_same_through_sqlite_json() throws {
        // Given child keys with quotes, backslashes, control characters and non-ASCII text
        let keys = [
            "Tag('a''b')", #"Tag('back\slash')"#, "Tag('quote\"d')", "Tag('tab\tnew\nline\u{1}')",
            "Tag('Zoë 🚗')", "Tag('')",
        ]
        let cache = try CacheDatabase()
        try cache.write { session in
            for key in keys {
                try session.upsertEntity(key: key, entitySet: "Tag", type: nil, properties: [], etag: nil, at: date, partial: false)
            }
            try session.replaceRelation(parent: "Person(1)", navigation: "Tags", children: keys, at: date)
        }
        // When the relation is read by the cache and by SQLite's own JSON functions
        let read = try cache.relationKeys(person, navigation: "Tags")?.keys
        let viaSQLite = try cache.read { db in
            try String.fetchAll(db, sql: "SELECT c.value FROM relation r, json_each(r.childKeys) c ORDER BY c.key")
        }
        // Then both give the keys in order, and every child is found
        #expect(read == keys)
        #expect(viaSQLite == keys)
        #expect(try cache.integrity().isClean)
    }

    @Test func a_damaged_relation_row_reads_as_unknown_and_integrity_names_it() throws {
        // Given a relation whose stored child keys are not a JSON array of strings
        let cache = try CacheDatabase()
        try cache.write { try $0.replaceRelation(parent: "Person(1)", navigation: "Cars", children: [], at: date) }
        try cache.writer.write { db in
            try db.execute(sql: "UPDATE relation SET childKeys = '[\"Car(1)\", 2' WHERE parentKey = 'Person(1)'")
        }
        // When it is read
        let related = try cache.related(person, navigation: "Cars")
        // Then it is unknown (so the fetcher asks again), and the integrity check counts it
        #expect(related == .unknown)
        #expect(try cache.integrity().malformedRelations == 1)
        #expect(try !cache.integrity().isClean)
    }

    @Test func a_v1_cache_migrates_its_relations_in_order_keeping_empty_ones() throws {
        // Given a cache file at schema v1: Person(1) → three cars (one stale row past the count),
        // Person(2) → known and empty, Person(3)'s cars unknown
        let path = NSTemporaryDirectory() + "relation-migration-\(UUID().uuidString).sqlite"
        defer { _ = try? CacheDatabase.removeFiles(at: path) }
        let v1 = try DatabaseQueue(path: path)
        try CacheSchema.migrator.migrate(v1, upTo: "v1")
        try v1.write { db in
            for (position, child) in ["Car(3)", "Car(1)", "Car(2)", "Car(9)"].enumerated() {
                try db.execute(
                    sql: "INSERT INTO relation (parentKey, navigation, position, childKey) VALUES ('Person(1)', 'Cars', ?, ?)",
                    arguments: [position, child])
            }
            try db.execute(
                sql: """
                    INSERT INTO relationState (parentKey, navigation, count, fetchedAt) VALUES
                        ('Person(1)', 'Cars', 3, ?), ('Person(2)', 'Cars', 0, ?)
                    """, arguments: [date.timeIntervalSince1970, date.timeIntervalSince1970])
        }
        try v1.close()
        // When the cache opens it
        let cache = try CacheDatabase(path: path)
        // Then the relations read as before the migration
        #expect(try cache.relationKeys(person, navigation: "Cars")?.keys == ["Car(3)", "Car(1)", "Car(2)"])
        #expect(try cache.relationKeys(person, navigation: "Cars")?.fetchedAt == date)
        #expect(try cache.relationKeys(EntityKey(entitySet: "Person", value: .int(2)), navigation: "Cars")?.keys == [])
        #expect(try cache.relationKeys(EntityKey(entitySet: "Person", value: .int(3)), navigation: "Cars") == nil)
        #expect(try cache.stats().relations == 2)
    }
}
