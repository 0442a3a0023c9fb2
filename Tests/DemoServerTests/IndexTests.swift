import Foundation
import GRDB
import Testing

@testable import DemoServer

/// Issue 17: People in the profile's order (last name, first name, key) walk one index either way, so a first
/// page and the last page asked from the end sort nothing; and a data file written before an index gets it.
@Suite struct IndexTests {
    func plan(_ store: DataStore, descending: Bool) throws -> String {
        let direction = descending ? " DESC" : ""
        let sql =
            "EXPLAIN QUERY PLAN SELECT * FROM \"Person\" ORDER BY \"lastName\"\(direction), "
            + "\"firstName\"\(direction), \"personID\"\(direction) LIMIT 50"
        return try store.reader.read { db in
            try Row.fetchAll(db, sql: sql).map { $0["detail"] as String? ?? "" }.joined(separator: "; ")
        }
    }

    @Test func the_people_order_walks_an_index_both_ways() throws {
        let directory = NSTemporaryDirectory() + "demo-index-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/demo.sqlite"
        let store = try DataStore.open(path: path, people: 50)
        for descending in [false, true] {
            let plan = try plan(store, descending: descending)
            #expect(plan.contains("ix_Person_lastName_firstName") && !plan.contains("TEMP B-TREE"), "\(plan)")
        }
        // A file from before the index: the next open adds it
        try store.reader.close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "DROP INDEX \"ix_Person_lastName_firstName\"") }
        try queue.close()
        let reopened = try DataStore.open(path: path, people: 50)
        #expect(!reopened.generated)
        let again = try plan(reopened, descending: true)
        #expect(again.contains("ix_Person_lastName_firstName") && !again.contains("TEMP B-TREE"), "\(again)")
    }
}
