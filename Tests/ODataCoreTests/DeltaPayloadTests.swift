import Foundation
import Testing

@testable import ODataCore

/// Delta answers (issue 34) as the decoder reads them: the link to come back to, changed entities as any others, and
/// the entries that say an entity left the collection, by key, in each shape services send.
@Suite struct DeltaPayloadTests {
    func collection(_ text: String, dialect: ODataDialect) throws -> ODataCollection {
        let decoder = PayloadDecoder(serviceRoot: "http://h/svc/", dialect: dialect)
        guard case .collection(let collection) = try decoder.decode(Array(text.utf8)) else {
            Issue.record("not a collection")
            return ODataCollection()
        }
        return collection
    }

    @Test func version4_delta_holds_changed_entities_removed_keys_and_the_next_link() throws {
        let read = try collection(
            #"""
            {"@odata.context":"http://h/svc/$metadata#Car/$delta","value":[
              {"@odata.id":"http://h/svc/Car(1)","carID":1,"model":"Ka"},
              {"@id":"http://h/svc/Car(2)","@removed":{"reason":"deleted"}},
              {"@odata.context":"http://h/svc/$metadata#Car/$deletedEntity","id":"Car(3)","reason":"changed"}],
             "@odata.deltaLink":"http://h/svc/Car?$deltatoken=D2"}
            """#, dialect: .v4)
        #expect(read.entities.count == 1 && read.entities.first?["model"] == .string("Ka"))
        #expect(read.removed.map(\.canonical) == ["Car(2)", "Car(3)"])
        #expect(read.deltaLink == "http://h/svc/Car?$deltatoken=D2")
    }

    @Test func version2_delta_marks_removed_entities_in_their_metadata() throws {
        let read = try collection(
            #"""
            {"d":{"results":[
              {"__metadata":{"uri":"http://h/svc/Car(1)","type":"M.Car"},"carID":1,"model":"Ka"},
              {"__metadata":{"id":"http://h/svc/Car(2)","uri":"http://h/svc/Car(2)","deleted":true,"type":"M.Car"}}],
             "__delta":"http://h/svc/Car?!deltatoken='D2'"}}
            """#, dialect: .v2)
        #expect(read.entities.map { $0.key?.canonical } == ["Car(1)"])
        #expect(read.removed.map(\.canonical) == ["Car(2)"])
        #expect(read.deltaLink == "http://h/svc/Car?!deltatoken='D2'")
    }

    @Test func a_first_read_with_change_tracking_carries_its_delta_link() throws {
        let read = try collection(
            #"{"d":{"results":[{"__metadata":{"uri":"http://h/svc/Car(1)"},"carID":1}],"__delta":{"uri":"http://h/svc/Car?!deltatoken='D1'"}}}"#,
            dialect: .v2)
        #expect(read.entities.count == 1 && read.removed.isEmpty && read.deltaLink?.hasSuffix("'D1'") == true)
        let plain = try collection(#"{"value":[{"carID":1}]}"#, dialect: .v4)
        #expect(plain.deltaLink == nil && plain.removed.isEmpty)
    }

    @Test(arguments: [
        (#"{"value":[{"@removed":{"reason":"deleted"}}]}"#, ODataDialect.v4, "names none"),
        (#"{"value":[{"@removed":{},"@id":"not a key"}]}"#, .v4, "names none"),
        (#"{"d":{"results":[{"__metadata":{"deleted":true}}]}}"#, .v2, "names none"),
        (#"{"value":[],"@odata.deltaLink":7}"#, .v4, "not a link"),
        (#"{"d":{"results":[],"__delta":{"href":"x"}}}"#, .v2, "without a \"uri\""),
    ])
    func a_delta_that_names_nothing_is_a_sentence(text: String, dialect: ODataDialect, expected: String) {
        do {
            let read = try collection(text, dialect: dialect)
            Issue.record("read as \(read)")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }
}
