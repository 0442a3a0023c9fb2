import CarDealerTestSupport
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
        let keys: [EntityKey] = [
            "Tag('a''b')", #"Tag('back\slash')"#, "Tag('quote\"d')", "Tag('tab\tnew\nline\u{1}')",
            "Tag('Zoë 🚗')", "Tag('')",
        ]
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            for key in keys {
                try session.upsertEntity(
                    key: key, entitySet: "Tag", type: nil, properties: [], etag: nil, at: date, partial: false)
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
        #expect(viaSQLite == keys.map(\.canonical))
        #expect(try cache.integrity().isClean)
    }

    @Test func a_damaged_relation_row_reads_as_unknown_and_integrity_names_it() throws {
        // Given a relation whose stored child keys are not a JSON array of strings
        let cache = try CacheDatabase()
        try cache.writeBlocking {
            try $0.replaceRelation(parent: "Person(1)", navigation: "Cars", children: [], at: date)
        }
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

    @Test func a_hop_read_keeps_the_relations_order_and_ends_a_row_where_its_chain_is_not_known() throws {
        // Given Person(1) → link entities, each with a to-one hop that is known, unknown, empty, damaged or
        // pointing at an entity not cached; one link twice, one link not cached at all; and keys needing quoting
        let links: [EntityKey] = ["PC(1)", "PC(2)", "PC(3)", "PC('it''s')", "PC(5)", "PC(77)", "PC(1)", "PC(6)"]
        let cache = try CacheDatabase()
        try cache.writeBlocking { session in
            for key: EntityKey in [
                "PC(1)", "PC(2)", "PC(3)", "PC('it''s')", "PC(5)", "PC(6)", "Car(1)", "Car(4)", "Maker(1)",
            ] {
                try session.upsertEntity(
                    key: key, entitySet: key.entitySet, type: nil,
                    properties: [.init(name: "k", value: .string(key.canonical))], etag: nil, at: date, partial: false)
            }
            try session.replaceRelation(parent: "Person(1)", navigation: "Links", children: links, at: date)
            try session.replaceRelation(parent: "PC(1)", navigation: "Car", children: ["Car(1)"], at: date)
            try session.replaceRelation(parent: "PC(3)", navigation: "Car", children: [], at: date)
            try session.replaceRelation(parent: "PC('it''s')", navigation: "Car", children: ["Car(4)"], at: date)
            try session.replaceRelation(parent: "PC(5)", navigation: "Car", children: ["Car(99)"], at: date)
            try session.replaceRelation(parent: "PC(6)", navigation: "Car", children: ["Car(1)"], at: date)
            try session.replaceRelation(parent: "Car(1)", navigation: "Maker", children: ["Maker(1)"], at: date)
        }
        try cache.writer.write { db in
            try db.execute(sql: "UPDATE relation SET childKeys = 'not json' WHERE parentKey = 'PC(6)'")
        }
        // When the path is read with one hop, with two, and with none
        guard case .known(let one, _) = try cache.related(person, path: ["Links", "Car"]),
            case .known(let two, _) = try cache.related(person, path: ["Links", "Car", "Maker"]),
            case .known(let none, _) = try cache.related(person, path: ["Links"])
        else {
            Issue.record("the relation should be known")
            return
        }
        // Then every cached link comes once per position, in order, with its target only where the chain is whole
        let cached = ["PC(1)", "PC(2)", "PC(3)", "PC('it''s')", "PC(5)", "PC(1)", "PC(6)"]
        #expect(one.map(\.link.key.canonical) == cached)
        #expect(one.map(\.target?.key.canonical) == ["Car(1)", nil, nil, "Car(4)", nil, "Car(1)", nil])
        #expect(one.first?.target?.properties == [.init(name: "k", value: .string("Car(1)"))])
        #expect(two.map(\.target?.key.canonical) == ["Maker(1)", nil, nil, nil, nil, "Maker(1)", nil])
        #expect(none.map(\.link.key.canonical) == cached && none.allSatisfy { $0.target == $0.link })
        // And a path whose first relation is unknown is unknown
        #expect(try cache.related(person, path: ["Nope", "Car"]) == .unknown)
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
                    sql:
                        "INSERT INTO relation (parentKey, navigation, position, childKey) VALUES ('Person(1)', 'Cars', ?, ?)",
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
