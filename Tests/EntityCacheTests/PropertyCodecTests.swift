import Foundation
import ODataCore
import Testing

@testable import EntityCache

@Suite struct PropertyCodecTests {
    @Test func every_value_kind_round_trips_losslessly() throws {
        // Given properties of every kind, with values at the edges
        let properties: [ODataProperty] = [
            .init(name: "n", value: .null), .init(name: "t", value: .bool(true)), .init(name: "f", value: .bool(false)),
            .init(name: "max", value: .int(Int64.max)), .init(name: "min", value: .int(Int64.min)),
            .init(name: "dec", value: .decimal("-12345678901234567890.000000001")),
            .init(name: "dbl", value: .double(-0.1)), .init(name: "nan", value: .double(.infinity)),
            .init(name: "s", value: .string("Zoë \u{1B}[31m 👩🏽‍🚀 \u{200F}")),
            .init(name: "g", value: .guid("0f8fad5b-d9cb-469f-a165-70867728950e")),
            .init(name: "dt", value: .dateTime(ODataInstant(millisecondsSince1970: -1_257_008_908_440))),
            .init(
                name: "dto",
                value: .dateTimeOffset(ODataInstant(millisecondsSince1970: 1_623_333_779_000, offsetMinutes: -210))),
            .init(name: "time", value: .time(ODataDuration(milliseconds: 9_584_000))),
            .init(name: "bin", value: .binary(Data([0, 255, 7]))),
            .init(
                name: "addr",
                value: .complex([.init(name: "city", value: .string("Oslo")), .init(name: "no", value: .int(3))])),
            .init(name: "bag", value: .collection([.int(1), .string("x"), .collection([])])),
        ]
        // When they are encoded and decoded
        let decoded = PropertyCodec.decode(PropertyCodec.encode(properties))
        // Then they come back identical and in order
        #expect(decoded == properties)
    }

    @Test func truncated_bytes_decode_to_nil_instead_of_trapping() {
        // Given a valid encoding
        let bytes = PropertyCodec.encode([.init(name: "name", value: .string("Bob"))])
        // When any prefix of it is decoded
        // Then it is rejected, never misread
        for length in 0..<bytes.count { #expect(PropertyCodec.decode(bytes.prefix(length)) == nil) }
    }
}
