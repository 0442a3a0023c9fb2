import Foundation
import Testing

@testable import ODataCore

/// ``EntityKey/init(canonical:)``: the cache's key text read back into the key it was written from.
@Suite struct CanonicalKeyTests {
    @Test func every_key_form_reads_back_from_its_canonical_text() {
        let keys = [
            EntityKey(entitySet: "Person", value: .int(1)),
            EntityKey(entitySet: "Person", value: .int(-42)),
            EntityKey(entitySet: "Person", value: .int(Int64.max)),
            EntityKey(entitySet: "Tag", value: .string("O'Neil, (Jr.) = /x% 🚗")),
            EntityKey(entitySet: "Tag", value: .string("")),
            EntityKey(entitySet: "Tag", value: .string("\u{0301}é")),
            EntityKey(entitySet: "Part", value: .guid("0c4b5a1e-8f4e-4c84-9a0d-6c5d2b1f9e11")),
            EntityKey(
                entitySet: "Line",
                values: [.init(name: "OrderID", value: .int(10248)), .init(name: "Item", value: .string("a,b"))]),
        ]
        for key in keys {
            let read = EntityKey(canonical: key.canonical)
            #expect(read?.canonical == key.canonical, "\(key.canonical)")
            #expect(read?.entitySet == key.entitySet)
        }
        // The fast path gives the same value as the literal parser
        #expect(EntityKey(canonical: "Person(7)")?.values.first?.value == .int(7))
    }

    @Test func text_that_is_not_a_canonical_key_is_refused() {
        for text in [
            "", "Person", "Person(", "Person()", "(1)", "Person(1", "Person(missing)", "Person('open)", "Per son(1)",
        ] {
            #expect(EntityKey(canonical: text) == nil, "\(text)")
        }
    }
}
