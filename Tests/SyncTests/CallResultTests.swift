import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import Testing

@testable import Sync

/// What a function answers that is not a list (issue 36), filed under the call: an entity cached as any entity and
/// named; a value as plain JSON, v2's wrapping object of one property unwrapped; a record as a complex value.
@Suite struct CallResultTests {
    let root = "http://192.168.1.112/EDMTest/CarDealer.svc/"
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let call = ListKey(path: ResourcePath(entitySet: "Describe"), options: QueryOptions())

    func file(_ text: String, dialect: ODataDialect? = nil, into cache: CacheDatabase) throws {
        var decoder =
            dialect == .v4
            ? PayloadDecoder(serviceRoot: root, dialect: .v4)
            : PayloadDecoder(serviceRoot: root, model: CarDealerModel.model)
        decoder.answersValues = true
        let payload = try decoder.decode(Array(text.utf8))
        try cache.writeBlocking {
            try Normaliser().write(
                payload, for: .call(call, entitySet: "Person"), partial: false, at: date, into: $0)
        }
    }

    @Test func a_value_is_kept_as_json_and_v2s_wrapping_object_is_unwrapped() throws {
        let cache = try CacheDatabase()
        try file(#"{"d": {"Describe": "Toyota Corolla"}}"#, into: cache)
        #expect(try cache.callResult(call.canonical) == CallResult(value: "\"Toyota Corolla\"", fetchedAt: date))
        try file(#"{"@odata.context": "$metadata#Edm.Int32", "value": 3}"#, dialect: .v4, into: cache)
        #expect(try cache.callResult(call.canonical)?.value == "3")
        // A record of several fields is a complex value
        try file(#"{"d": {"amount": "12.50", "currency": "EUR"}}"#, into: cache)
        let record = try #require(try cache.callResult(call.canonical)?.value)
        #expect(record.contains("\"amount\"") && record.contains("\"EUR\""), "\(record)")
        // Values in a list
        try file(
            #"{"@odata.context": "$metadata#Collection(Edm.String)", "value": ["a", "b"]}"#, dialect: .v4, into: cache)
        #expect(try cache.callResult(call.canonical)?.value == #"["a","b"]"#)
    }

    @Test func an_entity_is_cached_and_named() throws {
        let cache = try CacheDatabase()
        try file(
            #"""
            {"d": {"__metadata": {"uri": "http://192.168.1.112/EDMTest/CarDealer.svc/Person(7)",
              "type": "edmexampleModel.Person"}, "personID": 7, "firstName": "Ann", "lastName": "Smith"}}
            """#, into: cache)
        let result = try #require(try cache.callResult(call.canonical))
        #expect(result.entityKey == EntityKey(entitySet: "Person", value: .int(7)) && result.value == nil)
        #expect(try cache.entity(EntityKey(entitySet: "Person", value: .int(7)))?["lastName"] == .string("Smith"))
        #expect(try cache.integrity().isClean)
    }
}
