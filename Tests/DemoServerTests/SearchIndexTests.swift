import DemoServer
import Foundation
import ODataCore
import Testing

@testable import DemoServer

/// Issue 17: a substring filter on a searchable column is looked up in its trigram index, finds exactly the rows a
/// scan finds (hostile and non-Latin names too), and follows every change to the table.
struct SearchIndexTests {
    let person = ServiceSchema.carDealer.entitySet("Person")!

    @Test func only_a_lowered_substring_of_three_or_more_on_a_searchable_column_is_looked_up() throws {
        let translator = FilterTranslator(set: person)
        func lookup(_ filter: String) throws -> String? {
            guard case .call(let name, let arguments) = try FilterParser.parse(filter) else { return nil }
            return translator.searchLookup(name, arguments)?.sql
        }
        #expect(try lookup("substringof('sam', tolower(lastName))")?.contains("Person_search") == true)
        #expect(try lookup("contains(tolower(firstName), 'ann')")?.contains("Person_search") == true)
        #expect(try lookup("substringof('sa', tolower(lastName))") == nil)  // two characters: no trigram
        #expect(try lookup("substringof('sam', lastName)") == nil)  // case-sensitive: the scan decides alone
        #expect(try lookup("substringof('543', tolower(ssn))") == nil)  // not searchable
        // The text travels as an argument, quotes doubled inside the FTS5 phrase
        let fragment = try #require(
            translator.searchLookup(
                "substringof", [.literal(.string(#"o"ne"#)), .call("tolower", [.property("lastName")])]))
        #expect(fragment.arguments == [#"{lastName} : "o""ne""#.databaseValue])
    }

    /// IDs of `Person?$filter=…`, all of them.
    func ids(_ service: LiveService, _ filter: String) async throws -> [Int64] {
        let encoded = PercentEncoding.encodeQueryValue(filter)
        let collection = try await service.collection("Person?$filter=\(encoded)&$orderby=personID&$top=5000")
        return collection.entities.compactMap { entity -> Int64? in
            if case .int(let id)? = entity["personID"] { return id }
            return nil
        }
    }

    @Test(arguments: [false, true])
    func the_index_finds_what_a_scan_finds(hostile: Bool) async throws {
        let path = NSTemporaryDirectory() + "demo-search-\(UUID().uuidString).sqlite"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let service = LiveService(
            server: try await DemoServer.start(DemoServerConfiguration(people: 300, dataPath: path, hostile: hostile)))
        defer { Task { await service.server.stop() } }
        for text in ["sam", "son", "ann", "o'n", "øsk", "łód", "ren", "xyzzy", "SAM"] {
            let literal = ODataLiteral.quote(text)
            for column in ["lastName", "firstName"] {
                let indexed = try await ids(service, "substringof(\(literal), tolower(\(column)))")
                let scanned = try await ids(service, "indexof(tolower(\(column)), \(literal)) ne -1")
                #expect(indexed == scanned, "\(text) in \(column): \(indexed.count) against \(scanned.count)")
            }
        }
    }

    @Test func the_index_follows_creates_changes_and_deletes() async throws {
        let service = try await LiveService.startPrivate(people: 30)
        defer { Task { await service.server.stop() } }
        let created = try await service.get(
            "Person", method: "POST", body: #"{"firstName":"Ann","lastName":"Quuxbazly","ssn":"123456789"}"#)
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let found = try await ids(service, "substringof('uxbaz', tolower(lastName))")
        #expect(found.count == 1)
        let id = try #require(found.first)
        let renamed = try await service.get(
            "Person(\(id))", headers: ["If-Match": "*"], method: "MERGE", body: #"{"lastName":"Plughworthy"}"#)
        #expect(renamed.status == 204)
        #expect(try await ids(service, "substringof('uxbaz', tolower(lastName))").isEmpty)
        #expect(try await ids(service, "substringof('ghwor', tolower(lastName))") == [id])
        let deleted = try await service.get("Person(\(id))", headers: ["If-Match": "*"], method: "DELETE")
        #expect(deleted.status == 204)
        #expect(try await ids(service, "substringof('ghwor', tolower(lastName))").isEmpty)
    }
}
