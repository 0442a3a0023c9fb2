import Foundation
import ODataCore

/// The compact binary encoding of an entity's ordered properties, as stored in `entity.properties`.
///
/// Lossless for every ``ODataValue``: integers as zig-zag varints, decimals and
/// strings as UTF-8 text, doubles as their IEEE bit pattern, instants as
/// milliseconds plus an optional offset, complex values and bags recursively.
/// Layout: `version(1) count(varint) { nameLength(varint) name(utf8) value }*`
/// where a value is `tag(1) payload`. Property names are stored once per entity;
/// the format is private to the cache and versioned by its first byte.
public enum PropertyCodec {
    static let version: UInt8 = 1

    /// How much of a value a display read decodes: what a screen can show, with room to spare.
    public struct DisplayBound: Sendable, Hashable {
        /// UTF-8 bytes of one text value (string, decimal, guid) kept before it is cut.
        public var textBytes: Int
        /// Members of one collection or complex value kept before the rest is dropped.
        public var elements: Int

        public init(textBytes: Int, elements: Int) {
            self.textBytes = textBytes
            self.elements = elements
        }

        /// 4 KiB of text (more than the widest terminal row shows) and 64 members.
        public static let screen = DisplayBound(textBytes: 4096, elements: 64)
    }

    enum Tag: UInt8 {
        case null = 0, falseValue, trueValue, int, decimal, double, string, guid
        case dateTime, dateTimeOffset, time, binary, complex, collection
    }

    /// Encodes properties in order.
    public static func encode(_ properties: [ODataProperty]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 + properties.count * 16)
        out.append(version)
        encodeProperties(properties, into: &out)
        return out
    }

    /// Appends the encoding of `properties` to `out`.
    static func encode(_ properties: [ODataProperty], into out: inout [UInt8]) {
        out.append(version)
        encodeProperties(properties, into: &out)
    }

    /// Decodes what ``encode(_:)`` wrote; nil if the bytes are not a valid encoding.
    public static func decode(_ bytes: some Collection<UInt8>) -> [ODataProperty]? {
        let array = Array(bytes)
        return array.withUnsafeBufferPointer { buffer -> [ODataProperty]? in
            var reader = ByteReader(buffer: buffer)
            guard reader.byte() == version, let properties = reader.properties(), reader.isAtEnd else { return nil }
            return properties
        }
    }

    /// Decodes for display: text values past `bound` are cut (ending in `…`), collections and
    /// complex values keep their first `bound.elements` members, and the rest is skipped without
    /// being decoded. Returns the properties and the names of those whose values were cut;
    /// nil if the bytes are not a valid encoding.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, bound: DisplayBound
    ) -> (properties: [ODataProperty], cut: [String])? {
        let buffer = bytes.bindMemory(to: UInt8.self)
        var reader = ByteReader(buffer: buffer, bound: bound)
        guard reader.byte() == version, let count = reader.varint(), count <= UInt64(buffer.count) else { return nil }
        var properties: [ODataProperty] = []
        var cut: [String] = []
        for _ in 0..<count {
            reader.didCut = false
            guard let name = reader.text(), let value = reader.value() else { return nil }
            properties.append(ODataProperty(name: name, value: value))
            if reader.didCut { cut.append(name) }
        }
        return reader.isAtEnd ? (properties, cut) : nil
    }

    static func encodeProperties(_ properties: [ODataProperty], into out: inout [UInt8]) {
        appendVarint(UInt64(properties.count), to: &out)
        for property in properties {
            appendText(property.name, to: &out)
            encodeValue(property.value, into: &out)
        }
    }

    static func encodeValue(_ value: ODataValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(Tag.null.rawValue)
        case .bool(let flag): out.append(flag ? Tag.trueValue.rawValue : Tag.falseValue.rawValue)
        case .int(let number):
            out.append(Tag.int.rawValue)
            appendSigned(number, to: &out)
        case .decimal(let text):
            out.append(Tag.decimal.rawValue)
            appendText(text, to: &out)
        case .double(let number):
            out.append(Tag.double.rawValue)
            withUnsafeBytes(of: number.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        case .string(let text):
            out.append(Tag.string.rawValue)
            appendText(text, to: &out)
        case .guid(let text):
            out.append(Tag.guid.rawValue)
            appendText(text, to: &out)
        case .dateTime(let instant):
            out.append(Tag.dateTime.rawValue)
            appendInstant(instant, to: &out)
        case .dateTimeOffset(let instant):
            out.append(Tag.dateTimeOffset.rawValue)
            appendInstant(instant, to: &out)
        case .time(let duration):
            out.append(Tag.time.rawValue)
            appendSigned(duration.milliseconds, to: &out)
        case .binary(let data):
            out.append(Tag.binary.rawValue)
            appendVarint(UInt64(data.count), to: &out)
            out.append(contentsOf: data)
        case .complex(let members):
            out.append(Tag.complex.rawValue)
            encodeProperties(members, into: &out)
        case .collection(let elements):
            out.append(Tag.collection.rawValue)
            appendVarint(UInt64(elements.count), to: &out)
            for element in elements { encodeValue(element, into: &out) }
        }
    }

    /// An instant: milliseconds, then a presence flag and the offset in minutes.
    static func appendInstant(_ instant: ODataInstant, to out: inout [UInt8]) {
        appendSigned(instant.millisecondsSince1970, to: &out)
        if let offset = instant.offsetMinutes {
            out.append(1)
            appendSigned(Int64(offset), to: &out)
        } else {
            out.append(0)
        }
    }

    static func appendText(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count), to: &out)
            out.append(contentsOf: utf8)
        }
    }

    static func appendSigned(_ value: Int64, to out: inout [UInt8]) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)), to: &out)
    }

    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }
}
