import Testing

@testable import ODataCore

@Suite struct MalformedInputTests {
    func decodingError(_ text: String, model: ServiceModel? = nil, set: String? = nil) -> ODataError? {
        do {
            _ = try decode(text, model: model, set: set)
            return nil
        } catch let error as ODataError {
            return error
        } catch {
            return nil
        }
    }

    @Test func every_truncation_of_the_seed_payload_is_an_error_not_a_crash() throws {
        // Given the seed's payload cut at every possible byte
        let bytes = try fixture("seed-person-1-expand-personcar-car.json")
        let decoder = PayloadDecoder(serviceRoot: "http://h/EDMTest/CarDealer.svc/")
        var failures = 0
        for length in 0..<bytes.count - 2 {
            // When each prefix is decoded
            do {
                _ = try decoder.decode(bytes[..<length])
            } catch {
                // Then it fails with a payload error that says where
                #expect(error.kind == .malformedPayload)
                failures += 1
            }
        }
        #expect(failures == bytes.count - 2)
    }

    @Test func a_missing_d_wrapper_is_named() {
        let error = decodingError(#"{"results":[]}"#)
        #expect(error?.kind == .malformedPayload)
        #expect(error?.message.contains("no \"d\" member") == true)
        #expect(decodingError("[1,2]")?.message.contains("not an object") == true)
        #expect(decodingError("\"d\"")?.kind == .malformedPayload)
    }

    @Test func wrong_types_name_the_property_and_the_expected_type() throws {
        let model = try EDMXParser.parse(try fixture("cardealer-metadata.xml"))
        let error = decodingError(#"{"d":{"personID":{"oops":1}}}"#, model: model, set: "Person")
        #expect(error?.message == "the property personID should be Edm.Int32 but is an object")
        #expect(
            decodingError(#"{"d":{"createDate":"yesterday"}}"#, model: model, set: "Person")?.message.contains(
                "Edm.DateTime") == true)
        #expect(decodingError(#"{"d":{"serial":"12x"}}"#, model: model, set: "Person") != nil)
        #expect(
            decodingError(#"{"d":{"PersonCar":42}}"#, model: model, set: "Person")?.message.contains(
                "navigation PersonCar") == true)
        #expect(decodingError(#"{"d":{"results":[1,2]}}"#)?.message.contains("entry 0") == true)
        #expect(decodingError(#"{"d":{"results":[],"__count":"many"}}"#) != nil)
        #expect(decodingError(#"{"d":{"results":[],"__next":5}}"#) != nil)
        #expect(decodingError(#"{"d":{"__metadata":"x"}}"#) != nil)
        #expect(decodingError(#"{"d":{"x":{"__deferred":{}}}}"#) != nil)
    }

    @Test func ten_thousand_levels_of_nesting_are_refused() {
        let deepArrays = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let deepObjects = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        let deepEntities = #"{"d":"# + String(repeating: #"{"n":{"results":["#, count: 10_000)
        for text in [deepArrays, #"{"d":"# + deepArrays + "}", deepObjects, deepEntities] {
            let error = decodingError(text)
            #expect(error?.kind == .malformedPayload)
            #expect(error?.message.contains("nest deeper") == true)
        }
    }

    @Test func entities_nested_within_the_json_limit_but_too_deep_for_entities_are_refused() {
        // 100 levels of expanded entities: within the JSON reader's limit (128), beyond entity decoding's (96)
        let level = #"{"__metadata":{"uri":"http://h/S.svc/P(1)"},"n":"#
        let text = #"{"d":"# + String(repeating: level, count: 100) + "1" + String(repeating: "}", count: 100) + "}"
        #expect(decodingError(text)?.message == "entities nest deeper than 96 levels")
        // and 90 levels decode
        let fine = #"{"d":"# + String(repeating: level, count: 90) + "1" + String(repeating: "}", count: 90) + "}"
        #expect(decodingError(fine) == nil)
    }

    @Test func a_ten_megabyte_string_decodes_intact() throws {
        let big = String(repeating: "x", count: 10 * 1024 * 1024)
        let entity = try #require(try decode(#"{"d":{"text":""# + big + #""}}"#).entity)
        #expect(entity["text"] == .string(big))
    }

    @Test func invalid_utf8_and_lone_surrogates_become_replacement_characters() throws {
        var bytes = Array(#"{"d":{"a":""#.utf8)
        bytes += [0xFF, 0xC3]
        bytes += Array(#"","b":"\uD800x","c":"\uDC00","d":"\uD83D\uDE00"}}"#.utf8)
        let entity = try #require(try PayloadDecoder(serviceRoot: "http://h/").decode(bytes).entity)
        #expect(entity["a"] == .string("\u{FFFD}\u{FFFD}"))
        #expect(entity["b"] == .string("\u{FFFD}x"))
        #expect(entity["c"] == .string("\u{FFFD}"))
        #expect(entity["d"] == .string("😀"))
    }

    @Test(arguments: [
        "", " ", "{", "}", "[", "{\"d\"", "{\"d\":}", "{\"d\":[1,]}", "{\"d\":01}", "{\"d\":-}", "{\"d\":1.}",
        "{\"d\":1e}", "{\"d\":tru}", "{\"d\":\"\\x\"}", "{\"d\":\"\\u12\"}", "{\"d\":{}}x", "{'d':1}", "nul",
        "{\"d\":{\"a\" 1}}", "{\"d\":{1:2}}", "\u{0}",
    ])
    func broken_json_is_an_error(text: String) {
        #expect(throws: ODataError.self) { try decode(text) }
    }

    @Test func odata_error_bodies_in_a_200_response_are_service_errors() {
        let error = decodingError(#"{"error":{"code":"SY/530","message":{"lang":"en","value":"Resource not found"}}}"#)
        #expect(error?.kind == .service)
        #expect(error?.code == "SY/530")
        #expect(error?.message == "Resource not found")
    }
}
