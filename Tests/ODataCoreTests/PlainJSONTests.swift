import Foundation
import ODataCore
import Testing

@Suite struct PlainJSONTests {
    @Test func values_take_their_json_form_and_stay_exact() throws {
        let instant = ODataInstant(millisecondsSince1970: 1_257_008_908_440)
        let text = PlainJSON.object([
            .init(name: "id", value: .int(9_007_199_254_740_993)),
            .init(name: "cost", value: .decimal("1316.50")),
            .init(name: "name", value: .string("Zoë \"Z\"\n")),
            .init(name: "since", value: .dateTime(instant)),
            .init(name: "none", value: .null),
            .init(name: "ok", value: .bool(true)),
            .init(name: "tags", value: .collection([.string("a"), .int(2)])),
            .init(name: "address", value: .complex([.init(name: "city", value: .string("Łódź"))])),
        ])
        #expect(
            text
                == #"{"id":9007199254740993,"cost":1316.50,"name":"Zoë \"Z\"\n","since":"2009-10-31T17:08:28.440","none":null,"ok":true,"tags":["a",2],"address":{"city":"Łódź"}}"#
        )
        // It is JSON: a standard parser reads it
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
    }
}
