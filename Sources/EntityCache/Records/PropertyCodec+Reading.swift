import Foundation
import ODataCore

extension PropertyCodec {
    /// A bounds-checked cursor over encoded bytes; every read returns nil past the end.
    struct ByteReader {
        let buffer: UnsafeBufferPointer<UInt8>
        var offset = 0
        /// When set, the most a value is read for display (see ``PropertyCodec/DisplayBound``);
        /// values past it are cut and ``didCut`` is set.
        var bound: DisplayBound?
        /// Whether a value read since this was last reset was cut to ``bound``.
        var didCut = false

        var isAtEnd: Bool { offset == buffer.count }

        mutating func byte() -> UInt8? {
            guard offset < buffer.count else { return nil }
            defer { offset += 1 }
            return buffer[offset]
        }

        mutating func varint() -> UInt64? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while let next = byte() {
                result |= UInt64(next & 0x7F) << shift
                if next < 0x80 { return result }
                shift += 7
                if shift > 63 { return nil }
            }
            return nil
        }

        mutating func signed() -> Int64? {
            guard let raw = varint() else { return nil }
            return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
        }

        mutating func bytes(_ count: Int) -> UnsafeBufferPointer<UInt8>? {
            guard count >= 0, count <= buffer.count - offset else { return nil }
            defer { offset += count }
            return UnsafeBufferPointer(rebasing: buffer[offset..<(offset + count)])
        }

        mutating func text() -> String? {
            guard let length = varint(), length <= UInt64(Int.max), let slice = bytes(Int(length)) else { return nil }
            return String(decoding: slice, as: UTF8.self)
        }

        /// A text value; under a ``bound`` only its first ``DisplayBound/textBytes`` are decoded
        /// (cut at a scalar boundary and ended with `…`), the rest is skipped unread.
        mutating func boundedText() -> String? {
            guard let limit = bound?.textBytes else { return text() }
            guard let length = varint(), length <= UInt64(Int.max), let slice = bytes(Int(length)) else { return nil }
            guard slice.count > limit else { return String(decoding: slice, as: UTF8.self) }
            var end = limit
            // Back off continuation bytes (10xxxxxx) so that no scalar is split.
            while end > 0, slice[end] & 0xC0 == 0x80 { end -= 1 }
            didCut = true
            return String(decoding: UnsafeBufferPointer(rebasing: slice[0..<end]), as: UTF8.self) + "…"
        }

        mutating func instant() -> ODataInstant? {
            guard let milliseconds = signed(), let flag = byte() else { return nil }
            guard flag == 1 else { return flag == 0 ? ODataInstant(millisecondsSince1970: milliseconds) : nil }
            guard let offset = signed(), let minutes = Int(exactly: offset) else { return nil }
            return ODataInstant(millisecondsSince1970: milliseconds, offsetMinutes: minutes)
        }

        mutating func properties() -> [ODataProperty]? {
            guard let count = varint(), count <= UInt64(buffer.count) else { return nil }
            var result: [ODataProperty] = []
            result.reserveCapacity(Int(min(count, 64)))
            for index in 0..<count {
                guard let name = text() else { return nil }
                if let limit = bound?.elements, index >= limit {
                    guard skipValue() else { return nil }
                    didCut = true
                    continue
                }
                guard let value = value() else { return nil }
                result.append(ODataProperty(name: name, value: value))
            }
            return result
        }

        /// Reads past one value without building it; false if the bytes are not a valid value.
        mutating func skipValue() -> Bool {
            guard let raw = byte(), let tag = Tag(rawValue: raw) else { return false }
            switch tag {
            case .null, .falseValue, .trueValue: return true
            case .int, .time: return signed() != nil
            case .double: return bytes(8) != nil
            case .decimal, .string, .guid, .binary:
                guard let length = varint(), length <= UInt64(Int.max) else { return false }
                return bytes(Int(length)) != nil
            case .dateTime, .dateTimeOffset: return instant() != nil
            case .complex:
                guard let count = varint(), count <= UInt64(buffer.count) else { return false }
                for _ in 0..<count {
                    guard let length = varint(), length <= UInt64(Int.max), bytes(Int(length)) != nil, skipValue()
                    else { return false }
                }
                return true
            case .collection:
                guard let count = varint(), count <= UInt64(buffer.count) else { return false }
                for _ in 0..<count where !skipValue() { return false }
                return true
            }
        }

        mutating func value() -> ODataValue? {
            guard let raw = byte(), let tag = Tag(rawValue: raw) else { return nil }
            switch tag {
            case .null: return .null
            case .falseValue: return .bool(false)
            case .trueValue: return .bool(true)
            case .int: return signed().map(ODataValue.int)
            case .decimal: return boundedText().map(ODataValue.decimal)
            case .double:
                guard let slice = bytes(8) else { return nil }
                var bits: UInt64 = 0
                for (index, byte) in slice.enumerated() { bits |= UInt64(byte) << (8 * UInt64(index)) }
                return .double(Double(bitPattern: bits))
            case .string: return boundedText().map(ODataValue.string)
            case .guid: return boundedText().map(ODataValue.guid)
            case .dateTime: return instant().map(ODataValue.dateTime)
            case .dateTimeOffset: return instant().map(ODataValue.dateTimeOffset)
            case .time: return signed().map { .time(ODataDuration(milliseconds: $0)) }
            case .binary:
                guard let length = varint(), length <= UInt64(Int.max), let slice = bytes(Int(length)) else {
                    return nil
                }
                return .binary(Data(slice))
            case .complex: return properties().map(ODataValue.complex)
            case .collection:
                guard let count = varint(), count <= UInt64(buffer.count) else { return nil }
                var elements: [ODataValue] = []
                for index in 0..<count {
                    if let limit = bound?.elements, index >= limit {
                        guard skipValue() else { return nil }
                        didCut = true
                        continue
                    }
                    guard let element = value() else { return nil }
                    elements.append(element)
                }
                return .collection(elements)
            }
        }
    }
}
