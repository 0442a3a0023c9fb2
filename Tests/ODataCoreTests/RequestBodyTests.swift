import Foundation
import Testing

@testable import ODataCore

/// Write bodies in OData v2's JSON request format, read back by the same JSON reader the client uses.
@Suite struct RequestBodyTests {
    @Test func each_type_is_written_as_its_wire_form_and_reads_back() throws {
        let properties: [ODataProperty] = [
            .init(name: "id", value: .int(7)), .init(name: "big", value: .int(9_007_199_254_740_993)),
            .init(name: "cost", value: .decimal("12.50")),
            .init(name: "when", value: .dateTime(ODataInstant(millisecondsSince1970: -86_400_000))),
            .init(
                name: "at",
                value: .dateTimeOffset(ODataInstant(millisecondsSince1970: 1_623_333_779_000, offsetMinutes: -90))),
            .init(name: "ok", value: .bool(true)), .init(name: "none", value: .null),
            .init(name: "text", value: .string("a\"b\\c\u{1B}[31m\u{0}\u{202E}🚗\n")),
        ]
        let body = RequestBodyEncoder.object(properties, types: ["big": .int64])
        let text = String(decoding: body, as: UTF8.self)
        #expect(
            text.hasPrefix(
                #"{"id":7,"big":"9007199254740993","cost":"12.50","when":"\/Date(-86400000)\/","at":"\/Date(1623333779000-0090)\/","ok":true,"none":null,"#
            ))
        // And it is valid JSON whose string reads back byte-exact
        let read = try JSONReader().read(body)
        #expect(read["text"] == .string("a\"b\\c\u{1B}[31m\u{0}\u{202E}🚗\n"))
        #expect(read["cost"] == .string("12.50") && read["id"] == .number("7"))
        #expect(!text.contains("\u{1B}") && !text.contains("\u{0}"))
    }
}
